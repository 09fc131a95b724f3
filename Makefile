# snapsize: the whole set-up on a fresh Debian 12 is `make run` or `make test`.
# Both install the Debian packages the project needs (apt-get, via sudo when not root) first.

SWIFT      ?= swift
PREFIX     ?= $(HOME)/.local
RELEASE    := .build/release

# Build: C libraries used through SwiftPM system-library targets.
BUILD_DEPS := libdbus-1-dev libatspi2.0-dev pkg-config
# Run and test: the buses and the real clients the tests drive.
TEST_DEPS  := valgrind procps dbus-daemon dbus-bin libglib2.0-bin systemd at-spi2-core python3-pyatspi \
              gir1.2-atspi-2.0 python3-gi gir1.2-gtk-3.0 xvfb x11-utils orca python3-dogtail
# Tools the tests run on our files, installed without their recommended packages (which would pull in
# Qt's GUI stack and more): qdbusxml2cpp reads dbus/*.xml (gdbus-codegen comes with libglib2.0-dev).
TOOL_DEPS  := qtbase5-dev-tools libglib2.0-dev-bin
DEPS       := $(BUILD_DEPS) $(TEST_DEPS)
# `make bench` only: the sd-bus and GDBus peers (Benchmarks/peers/).
BENCH_DEPS := libsystemd-dev libglib2.0-dev

.PHONY: run test test-orca48 stress deps bench-deps build bench bench-programs profile bench-core install clean

# The main job: snapsized in the foreground (with private buses when the machine has none).
run: deps
	$(SWIFT) build -c release
	RELEASE=$(RELEASE) scripts/run-daemon.sh $(ARGS)

test: deps
	$(SWIFT) test

# The Orca scenarios with Orca 48 (Debian 13) from a chroot built once under /var/tmp (needs root;
# not part of `make test`): scripts/test-orca48.sh.
test-orca48: deps
	SWIFT=$(SWIFT) scripts/test-orca48.sh

# The long forms of the reliability tests (bounded, about 5 minutes): 50,000 fuzzed calls, 50 kill -9
# rounds, 32 clients x 1,000 calls; valgrind memcheck of the daemon; the whole suite under AddressSanitizer.
stress: deps
	SNAPSIZE_STRESS=1 timeout 600 $(SWIFT) test --filter 'FuzzTests|CorePropertyTests|FaultTests'
	$(SWIFT) build -c release --product snapsized
	RELEASE=$(RELEASE) scripts/valgrind-daemon.sh
	# Memory errors only: leaks are valgrind's job above (LeakSanitizer also counts what is merely
	# alive at exit(), and changes exit statuses the tests check).
	ASAN_OPTIONS=detect_leaks=0 SNAPSIZE_SANITIZER=address timeout 900 \
	    $(SWIFT) test --sanitize=address --scratch-path .build-asan

build: deps
	$(SWIFT) build -c release

# The benchmark (README, Performance): snapsized against the plain-C floor and the sd-bus and GDBus
# peers on one private bus, side by side, in rounds of fresh processes; prints one table with the state
# files on tmpfs and one on disk, each server's figure and snapsized's ratio to each. Options:
# ARGS=--json, ARGS='--rounds 21', ARGS='--media tmpfs', ARGS='--state-dir /home/me/tmp' (the disk folder).
BENCH_CFLAGS := -O2 -Wall -Wextra
bench: bench-programs
	timeout 900 $(RELEASE)/snapsize-bench $(ARGS)

# Instructions per call in the serving loop of the daemon (with and without its slider), of the
# floor and of the sd-bus and GDBus peers, counted by callgrind: where the README's instruction counts come from.
profile: bench-programs
	for mode in daemon daemon-a11y floor sdbus gdbus; do RELEASE=$(RELEASE) scripts/callgrind-per-call.sh $$mode || exit 1; done

bench-programs: bench-deps
	$(SWIFT) build -c release
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-floor Benchmarks/floor/floor.c $$(pkg-config --cflags --libs dbus-1)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-sdbus-peer Benchmarks/peers/sdbus-peer.c \
	    $$(pkg-config --cflags --libs libsystemd)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-gdbus-peer Benchmarks/peers/gdbus-peer.c \
	    $$(pkg-config --cflags --libs gio-2.0)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapcore-bench-c Benchmarks/core/index-at.c -lm
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-a11y-listener Benchmarks/listener/listener.c \
	    $$(pkg-config --cflags --libs atspi-2) -lgobject-2.0 -lglib-2.0

# Micro-benchmark of SnapCore (ns per index(at:) and per state transition).
bench-core: deps
	$(SWIFT) build -c release --product snapcore-bench
	$(RELEASE)/snapcore-bench

# Binaries to $(PREFIX)/bin; the D-Bus activation file and the systemd user unit where the
# session looks for them, pointing at the installed binary, so a plain `gdbus call` starts it.
install: build
	install -d $(PREFIX)/bin $(PREFIX)/share/dbus-1/services $(PREFIX)/share/systemd/user
	install -m 755 $(RELEASE)/snapsized $(RELEASE)/snapsizectl $(PREFIX)/bin/
	sed 's|^Exec=.*|Exec=$(PREFIX)/bin/snapsized|' dbus/org.snapsize.SizeSelector1.service \
	    > $(PREFIX)/share/dbus-1/services/org.snapsize.SizeSelector1.service
	sed 's|^ExecStart=.*|ExecStart=$(PREFIX)/bin/snapsized|' dbus/snapsized.service \
	    > $(PREFIX)/share/systemd/user/snapsized.service
	@echo "Installed. Try: gdbus call --session --dest org.snapsize.SizeSelector1 \\"
	@echo "  --object-path /org/snapsize/SizeSelector1 --method org.snapsize.SizeSelector1.Increment"

bench-deps:
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS) $(BENCH_DEPS)"

# Installs only what is missing, so a machine that has everything is never touched.
deps:
	@$(call install-missing,$(DEPS),)
	@$(call install-missing,$(TOOL_DEPS),--no-install-recommends)

# $(1): packages; $(2): extra apt-get options.
define install-missing
	missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(2) $$missing; \
	fi
endef

clean:
	rm -rf .build
