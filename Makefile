# snapsize: the whole set-up on a fresh Debian 12 is `make run` or `make test`.
# Both install the Debian packages the project needs (apt-get, via sudo when not root) first.

SWIFT      ?= swift
PREFIX     ?= $(HOME)/.local
RELEASE    := .build/release

# Build: C libraries used through SwiftPM system-library targets.
BUILD_DEPS := libdbus-1-dev libatspi2.0-dev pkg-config
# Run and test: the buses and the real clients the tests drive.
TEST_DEPS  := dbus-daemon dbus-bin libglib2.0-bin systemd at-spi2-core python3-pyatspi gir1.2-atspi-2.0 \
              python3-gi xvfb x11-utils orca python3-dogtail procps
DEPS       := $(BUILD_DEPS) $(TEST_DEPS)

.PHONY: run test deps build bench-core install clean

run: deps
	$(SWIFT) build -c release
	@echo "snapsize: the daemon is not built yet; showing the offline snapping core instead."
	$(RELEASE)/snapsizectl --help
	$(RELEASE)/snapsizectl snap --x 51

test: deps
	$(SWIFT) test

build: deps
	$(SWIFT) build -c release

# Micro-benchmark of SnapCore (ns per index(at:) and per state transition).
bench-core: deps
	$(SWIFT) build -c release --product snapcore-bench
	$(RELEASE)/snapcore-bench

# Installs only what is missing, so a machine that has everything is never touched.
deps:
	@missing=""; for p in $(DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi

clean:
	rm -rf .build
