# snapsize: the whole set-up on a fresh Debian 12 is `make run` or `make test`.
# Both install the Debian packages the project needs (apt-get, via sudo when not root) first.

SWIFT      ?= swift
PREFIX     ?= $(HOME)/.local
RELEASE    := .build/release

# Build: C libraries used through SwiftPM system-library targets.
# gettext: msgfmt compiles the message catalogs in po/.
# libstdc++-12-dev's libstdc++.a (and libgcc-12-dev's libgcc_eh.a) are linked into both programs (Package.swift).
BUILD_DEPS := libdbus-1-dev libatspi2.0-dev pkg-config gettext libstdc++-12-dev
# Run and test: the buses and the real clients the tests drive.
TEST_DEPS  := valgrind procps dbus-daemon dbus-bin libglib2.0-bin systemd at-spi2-core python3-pyatspi \
              gir1.2-atspi-2.0 python3-gi gir1.2-gtk-3.0 xvfb x11-utils orca python3-dogtail locales
# Tools the tests run on our files, installed without their recommended packages (which would pull in
# Qt's GUI stack and more): qdbusxml2cpp reads dbus/*.xml (gdbus-codegen comes with libglib2.0-dev).
TOOL_DEPS  := qtbase5-dev-tools libglib2.0-dev-bin
DEPS       := $(BUILD_DEPS) $(TEST_DEPS)
# `make bench` only: the sd-bus and GDBus peers (Benchmarks/peers/).
BENCH_DEPS := libsystemd-dev libglib2.0-dev

# The message catalogs (po/<lang>.po), and the locales the language tests run in: Debian makes none
# but C.UTF-8 by itself, and gettext speaks only in an installed locale.
LANGUAGES  := $(basename $(notdir $(wildcard po/*.po)))
LOCALEDIR  ?= $(RELEASE)/locale
TEST_LOCALES := pt_BR zh_CN ar_EG ko_KR fr_FR

.PHONY: run test test-orca48 stress deps bench-deps build bench bench-programs profile profile-check bench-core programs install uninstall deb package-deps clean \
        pot catalogs locales

# The main job: snapsized in the foreground (with private buses when the machine has none).
run: deps
	$(SWIFT) build -c release
	@$(MAKE) --no-print-directory catalogs
	RELEASE=$(RELEASE) scripts/run-daemon.sh $(ARGS)

# The Swift suite (in English unless a test asks for a language; the tests compile po/ next to the
# debug build themselves), then the package as a user gets it: make deb (lintian must report no error),
# the unpacked package (scripts/check-deb.sh), make install/uninstall (scripts/check-install.sh), and
# the daemon's instructions per call against Benchmarks/thresholds (make profile-check).
test: package-deps locales
	env -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG=C.UTF-8 $(SWIFT) test
	$(MAKE) --no-print-directory deb
	scripts/check-deb.sh .build/deb/snapsize_*.deb
	scripts/check-install.sh
	@$(MAKE) --no-print-directory profile-check

# The Orca scenarios with Orca 48 (Debian 13) from a chroot built once under /var/tmp (needs root;
# not part of `make test`): scripts/test-orca48.sh.
test-orca48: deps
	SWIFT=$(SWIFT) scripts/test-orca48.sh

# The long forms of the reliability tests (bounded, about 6 minutes): 50,000 fuzzed calls, 50 kill -9
# rounds, 32 clients x 1,000 calls, 20,000 changes with the accessibility bus stopped (SIGSTOP); valgrind
# memcheck of the daemon; the whole suite under AddressSanitizer.
stress: deps
	SNAPSIZE_STRESS=1 timeout 900 $(SWIFT) test --filter 'FuzzTests|CorePropertyTests|FaultTests|StuckBusTests'
	$(SWIFT) build -c release --product snapsized
	RELEASE=$(RELEASE) scripts/valgrind-daemon.sh
	# Memory errors only: leaks are valgrind's job above (LeakSanitizer also counts what is merely
	# alive at exit(), and changes exit statuses the tests check).
	ASAN_OPTIONS=detect_leaks=0 SNAPSIZE_SANITIZER=address timeout 900 \
	    $(SWIFT) test --sanitize=address --scratch-path .build-asan

build: deps
	$(SWIFT) build -c release
	@$(MAKE) --no-print-directory catalogs

# po/*.po compiled next to the binaries ($(RELEASE)/locale), where uninstalled ones look first.
catalogs:
	@for lang in $(LANGUAGES); do \
	  mkdir -p $(LOCALEDIR)/$$lang/LC_MESSAGES && \
	  msgfmt --check -o $(LOCALEDIR)/$$lang/LC_MESSAGES/snapsize.mo po/$$lang.po || exit 1; \
	done

# po/snapsize.pot from the tr()/trn() calls in Sources/, merged into every catalog; `swift test`
# fails until each new msgid is translated in each po/<lang>.po.
pot:
	/usr/bin/python3 scripts/po.py pot

# Makes the test locales that are missing (as root, or through sudo), like `deps` installs packages.
locales:
	@missing=""; for l in $(TEST_LOCALES); do \
	  locale -a 2>/dev/null | grep -qx "$$l.utf8" || missing="$$missing $$l"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Making locales:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  for l in $$missing; do $$sudo localedef -i $$l -c -f UTF-8 $$l.UTF-8 || exit 1; done; \
	fi

# The benchmark (README, Performance): snapsized against the plain-C floor and the sd-bus and GDBus
# peers on one private bus, side by side, in rounds of fresh processes; prints one table with the state
# files on tmpfs and one on disk, each server's figure and snapsized's ratio to each. Options:
# ARGS=--json, ARGS='--rounds 21', ARGS='--media tmpfs', ARGS='--state-dir /home/me/tmp' (the disk folder).
BENCH_CFLAGS := -O2 -Wall -Wextra
bench: bench-programs
	timeout 900 $(RELEASE)/snapsize-bench $(ARGS)

# Instructions per call in the serving loop of the daemon (with and without its slider), of the
# floor and of the sd-bus and GDBus peers, counted by callgrind: where the README's instruction counts
# come from. Fails when the daemon counts more than Benchmarks/thresholds allows.
profile: bench-programs
	for mode in daemon daemon-a11y floor sdbus gdbus; do RELEASE=$(RELEASE) scripts/callgrind-per-call.sh $$mode || exit 1; done

# The daemon's two modes of `make profile` only, against Benchmarks/thresholds and against a stale
# scripts/snapsized.order (part of `make test`: about 45 seconds under valgrind, on the release build
# `make programs` made; scripts/link-order.sh remakes the order file).
profile-check: programs
	$(A11Y_LISTENER)
	for mode in daemon daemon-a11y; do RELEASE=$(RELEASE) scripts/callgrind-per-call.sh $$mode || exit 1; done

# Built as `make programs` and the package build them, without the $$ORIGIN run path SwiftPM adds
# otherwise: with it, the dynamic linker would first look for libc and libm beside snapsized (some 40
# failed opens and stats at every start, which the installed daemon never makes; exec -> name owned).
bench-programs: bench-deps
	$(SWIFT) build -c release --disable-local-rpath
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-floor Benchmarks/floor/floor.c $$(pkg-config --cflags --libs dbus-1)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-sdbus-peer Benchmarks/peers/sdbus-peer.c \
	    $$(pkg-config --cflags --libs libsystemd)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-gdbus-peer Benchmarks/peers/gdbus-peer.c \
	    $$(pkg-config --cflags --libs gio-2.0)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapcore-bench-c Benchmarks/core/index-at.c -lm
	$(A11Y_LISTENER)

# A libatspi client that listens for the slider's value events (make bench, make profile).
A11Y_LISTENER = cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-a11y-listener Benchmarks/listener/listener.c \
	    $$(pkg-config --cflags --libs atspi-2) -lgobject-2.0 -lglib-2.0

# Micro-benchmark of SnapCore (ns per index(at:) and per state transition).
bench-core: deps
	$(SWIFT) build -c release --product snapcore-bench
	$(RELEASE)/snapcore-bench

# Installing, the way Debian software does. `make install` (PREFIX, default ~/.local; DESTDIR for
# staging) puts the stripped binaries in bin/, the D-Bus activation file and the systemd user unit where
# the session looks for them (pointing at the installed binary, so a plain `gdbus call` starts it), the
# man pages, the bash, zsh and fish completions and the translations under share/. `make uninstall`
# removes exactly those files. Both programs link the Swift runtime statically.
DESTDIR    ?=
BINDIR      = $(PREFIX)/bin
DATADIR     = $(PREFIX)/share
# systemd reads user units from <prefix>/lib/systemd/user for /usr and /usr/local, else from
# $XDG_DATA_HOME/systemd/user (~/.local/share).
USERUNITDIR = $(if $(filter /usr /usr/local,$(PREFIX)),$(PREFIX)/lib/systemd/user,$(DATADIR)/systemd/user)
# Generated by `make programs`: man pages, completions and .mo catalogs, in the layout of share/.
GENERATED  := .build/generated
COMPLETIONS = bash-completion/completions/snapsizectl bash-completion/completions/snapsized \
              zsh/vendor-completions/_snapsizectl zsh/vendor-completions/_snapsized \
              fish/vendor_completions.d/snapsizectl.fish fish/vendor_completions.d/snapsized.fish
MANPAGES    = man/man1/snapsizectl.1.gz man/man1/snapsized.1.gz
# The user guide (GUIDE.md): first steps, keyboard shortcuts on GNOME, KDE Plasma and window managers.
DOCS        = doc/snapsize/GUIDE.md.gz
INSTALLED   = $(BINDIR)/snapsized $(BINDIR)/snapsizectl \
              $(DATADIR)/dbus-1/services/org.snapsize.SizeSelector1.service $(USERUNITDIR)/snapsized.service \
              $(addprefix $(DATADIR)/,$(MANPAGES) $(COMPLETIONS) $(DOCS))
# Debian packages `make install`, `make deb` and their tests need; installed without recommends.
PACKAGE_DEPS := binutils file gettext man-db bash-completion zsh fish dpkg-dev lintian

# The two programs (no $$ORIGIN run path: nothing is loaded from beside them) and the generated files.
programs: deps
	$(SWIFT) build -c release --disable-local-rpath --product snapsized
	$(SWIFT) build -c release --disable-local-rpath --product snapsizectl
	$(SWIFT) build -c release --disable-local-rpath --product snapsize-docs
	rm -rf $(GENERATED)
	LC_ALL=C.UTF-8 LANGUAGE= $(RELEASE)/snapsize-docs $(GENERATED)
	gzip -9n $(GENERATED)/man/man1/*.1
	mkdir -p $(GENERATED)/doc/snapsize && gzip -9nc GUIDE.md > $(GENERATED)/$(DOCS)
	@$(MAKE) --no-print-directory catalogs LOCALEDIR=$(GENERATED)/locale

install: programs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/dbus-1/services $(DESTDIR)$(USERUNITDIR)
	install -s -m 755 $(RELEASE)/snapsized $(RELEASE)/snapsizectl $(DESTDIR)$(BINDIR)/
	sed 's|^Exec=.*|Exec=$(BINDIR)/snapsized|' dbus/org.snapsize.SizeSelector1.service \
	    > $(DESTDIR)$(DATADIR)/dbus-1/services/org.snapsize.SizeSelector1.service
	sed 's|^ExecStart=.*|ExecStart=$(BINDIR)/snapsized|' dbus/snapsized.service \
	    > $(DESTDIR)$(USERUNITDIR)/snapsized.service
	chmod 644 $(DESTDIR)$(DATADIR)/dbus-1/services/org.snapsize.SizeSelector1.service $(DESTDIR)$(USERUNITDIR)/snapsized.service
	cd $(GENERATED) && for file in $(MANPAGES) $(COMPLETIONS) $(DOCS) $$(find locale -name '*.mo' 2>/dev/null); do \
	  install -D -m 644 $$file $(DESTDIR)$(DATADIR)/$$file || exit 1; \
	done
	@echo "Installed. Try: gdbus call --session --dest org.snapsize.SizeSelector1 \\"
	@echo "  --object-path /org/snapsize/SizeSelector1 --method org.snapsize.SizeSelector1.Increment"

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED)) $(DESTDIR)$(DATADIR)/locale/*/LC_MESSAGES/snapsize.mo

# A Debian binary package in .build/: `make install` into a staging root with PREFIX=/usr, then
# scripts/build-deb.sh (Depends from dpkg-shlibdeps, dpkg-deb), then lintian.
deb: package-deps
	rm -rf .build/deb
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/.build/deb/debian/snapsize
	scripts/build-deb.sh .build/deb
	lintian --fail-on error --tag-display-limit 0 .build/deb/snapsize_*.deb

package-deps:
	@$(MAKE) --no-print-directory deps
	@$(call install-missing,$(PACKAGE_DEPS),--no-install-recommends)

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
