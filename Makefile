# snapsize: the whole set-up on a fresh Debian 12 is `make run` or `make test`.
# Both install the Debian packages the project needs (apt-get, via sudo when not root) first.

SWIFT      ?= swift
PREFIX     ?= $(HOME)/.local
RELEASE    := .build/release
# The D-Bus activation file (dbus/, installed in share/dbus-1/services), named by the contract's bus
# name (SelectorBus.name in Sources/SizeSelectorContract/Names.swift), which a bus looks it up by.
BUS_NAME   := $(shell sed -n 's/.*static let name = BusName(rawValue: "\([^"]*\)").*/\1/p' Sources/SizeSelectorContract/Names.swift)
$(if $(BUS_NAME),,$(error no SelectorBus.name in Sources/SizeSelectorContract/Names.swift))
export ACTIVATION_FILE := $(BUS_NAME).service

# Debian packages, one list per purpose; each target installs its own lists and nothing more, all
# without recommended packages (a recommend that is needed is named in a list). `make deps-list` prints them.
#
# The Swift toolchain's own needs (swift.org's list for Debian 12, as run-time packages: its -dev
# packages only bring these in): the linker and the C run-time objects clang links with (binutils,
# libc6-dev, libgcc-12-dev), the libraries swift-build and swift-frontend load (libcurl4, libxml2,
# libsqlite3-0, libncurses6), tzdata and pkg-config. Left out: git, libedit, libpython3 and uuid-dev,
# which only lldb, the REPL or fetching packages need.
TOOLCHAIN_DEPS := binutils libc6-dev libgcc-12-dev libcurl4 libxml2 libsqlite3-0 libncurses6 tzdata pkg-config
# Building snapsize: the C libraries behind its system-library targets (GTK 4's for the panel); msgfmt (gettext) for po/;
# libstdc++-12-dev's libstdc++.a (and libgcc-12-dev's libgcc_eh.a), linked into both programs (Package.swift).
BUILD_DEPS  = $(TOOLCHAIN_DEPS) libdbus-1-dev gettext libstdc++-12-dev $(PANEL_BUILD_DEPS)
# `make run`: the buses the daemon serves on (dbus-send checks for a session bus); the panel's GTK 4
# comes with its headers.
RUN_DEPS   := dbus-daemon dbus-bin at-spi2-core
# `make test`: a C compiler (the gdbus-codegen test compiles a client; the AT-SPI listener), libatspi's
# headers (the in-process AT-SPI client), the real clients the tests drive (pyatspi, dogtail, Orca on
# Xvfb, busctl from systemd, gdbus from libglib2.0-bin), valgrind, locales, and the code generators the
# contract is checked with (qdbusxml2cpp, gdbus-codegen).
TEST_DEPS  := gcc libatspi2.0-dev valgrind procps libglib2.0-bin systemd python3-pyatspi gir1.2-atspi-2.0 \
              python3-gi gir1.2-gtk-3.0 xvfb x11-utils orca python3-dogtail locales \
              qtbase5-dev-tools libglib2.0-dev-bin
# The panel (snapsize-panel, GTK 4): its build needs GTK's headers; its tests drive a real pointer
# (xdotool), take screenshots (ImageMagick's import) and turn on Large Text (an XSETTINGS manager) under Xvfb,
# and show it on Wayland (weston's headless compositor).
PANEL_BUILD_DEPS := libgtk-4-dev
PANEL_TEST_DEPS  := xdotool imagemagick xsettingsd weston
# `make deb`, `make install` and their checks.
PACKAGE_DEPS := file man-db bash-completion zsh fish dpkg-dev lintian
# `snapsizectl keys` and its tests (KeysTests): GNOME's keybinding schemas, whose defaults the suggested
# keys must not collide with.
KEYS_TEST_DEPS := gsettings-desktop-schemas gnome-settings-daemon-common mutter-common gnome-shell-common
# `make bench` only: the sd-bus and GDBus peers (Benchmarks/peers/).
BENCH_DEPS := libsystemd-dev libglib2.0-dev
# `make stress` only: the fresh Debian systems of scripts/fresh-debian.sh.
STRESS_DEPS := debootstrap

# The message catalogs (po/<lang>.po), and the locales the language tests run in: Debian makes none
# but C.UTF-8 by itself, and gettext speaks only in an installed locale.
LANGUAGES  := $(basename $(notdir $(wildcard po/*.po)))
LOCALEDIR  ?= $(RELEASE)/locale
TEST_LOCALES := pt_BR zh_CN ar_EG ko_KR fr_FR

.PHONY: run test test-orca48 stress build-deps run-deps test-deps stress-deps deps-list bench-deps build bench bench-programs profile profile-check bench-core programs install uninstall deb package-deps clean \
        pot catalogs locales

# The main job: snapsized in the foreground (with private buses when the machine has none), and the
# panel (snapsize-panel) beside it when there is a display (DISPLAY or WAYLAND_DISPLAY).
run: run-deps
	$(SWIFT) build -c release
	@$(MAKE) --no-print-directory catalogs
	RELEASE=$(RELEASE) scripts/run-daemon.sh $(ARGS)

# The Swift suite (in English unless a test asks for a language; the tests compile po/ next to the
# debug build themselves), then the package as a user gets it: make deb (lintian must report no error),
# the unpacked package (scripts/check-deb.sh), make install/uninstall (scripts/check-install.sh), and
# the daemon's instructions per call against Benchmarks/thresholds (make profile-check).
test: test-deps locales
	env -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG=C.UTF-8 $(SWIFT) test
	$(MAKE) --no-print-directory deb
	scripts/check-deb.sh .build/deb/snapsize_*.deb
	scripts/check-install.sh
	@$(MAKE) --no-print-directory profile-check

# The Orca scenarios with Orca 48 (Debian 13), KeysTests' check of GNOME 48's default keys, and
# PidReuseTests with dbus-daemon 1.16 (a caller's process as a pidfd), from a chroot built once under /var/tmp (needs root; not part of `make test`): scripts/test-orca48.sh.
test-orca48: test-deps
	SWIFT=$(SWIFT) scripts/test-orca48.sh

# The long forms of the reliability tests (bounded): 50,000 fuzzed calls, 50 kill -9 rounds, 32 clients
# x 1,000 calls, 20,000 changes with the accessibility bus stopped (SIGSTOP); valgrind memcheck of the
# daemon; the whole suite under AddressSanitizer; then the README's set-up on fresh Debian 12 minbase
# systems (scripts/fresh-debian.sh: root, debootstrap, the network to Debian's mirror; it tries HEAD).
stress: stress-deps
	SNAPSIZE_STRESS=1 timeout 900 $(SWIFT) test --filter 'FuzzTests|CorePropertyTests|FaultTests|StuckBusTests'
	$(SWIFT) build -c release --product snapsized
	RELEASE=$(RELEASE) scripts/valgrind-daemon.sh
	# Memory errors only: leaks are valgrind's job above (LeakSanitizer also counts what is merely
	# alive at exit(), and changes exit statuses the tests check).
	ASAN_OPTIONS=detect_leaks=0 SNAPSIZE_SANITIZER=address timeout 900 \
	    $(SWIFT) test --sanitize=address --scratch-path .build-asan
	timeout 5400 scripts/fresh-debian.sh all

build: build-deps
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

# The inner loop: the debug build, then the in-process tests (each Tests/<Module>Tests and PackageTests),
# not SnapsizedTests (they start the daemon), AccessibilityTests (the real AT stack) nor the panel under Xvfb;
# see docs/HACKING.md.
# It installs what testing needs, like `make test`, when something is missing.
.PHONY: check
check: test-deps
	$(SWIFT) build --build-tests
	env -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG=C.UTF-8 $(SWIFT) test --skip-build --skip '^(AccessibilityTests|SnapsizedTests)\.|^SnapPanelTests\.Panel(Pointer|Daemon)Tests'

# The tree in the style of .swift-format (docs/HACKING.md, Formatting).
.PHONY: format
format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

# Makes the test locales that are missing (as root, or through sudo), like `test-deps` installs packages.
locales:
	@missing=""; for l in $(TEST_LOCALES); do \
	  locale -a 2>/dev/null | grep -qx "$$l.utf8" || missing="$$missing $$l"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Making locales:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  for l in $$missing; do $$sudo localedef -i $$l -c -f UTF-8 $$l.UTF-8 || exit 1; done; \
	fi

# The benchmark (docs/PERFORMANCE.md): snapsized against the plain-C floor and the sd-bus and GDBus
# peers on one private bus, side by side, in rounds of fresh processes; prints one table with the state
# files on tmpfs and one on disk, each server's figure and snapsized's ratio to each. Options:
# ARGS=--json, ARGS='--rounds 21', ARGS='--media tmpfs', ARGS='--state-dir /home/me/tmp' (the disk folder);
# then the panel's rows (snapsize-panel under Xvfb beside a plain GTK 4 window), or only those: ARGS=--panel.
BENCH_CFLAGS := -O2 -Wall -Wextra
bench: bench-programs
	timeout 900 $(RELEASE)/snapsize-bench $(ARGS)

# Instructions per call in the serving loop of the daemon (with and without its slider), of the
# floor and of the sd-bus and GDBus peers, counted by callgrind: where docs/PERFORMANCE.md's instruction counts
# come from. Fails when the daemon counts more than Benchmarks/thresholds allows.
profile: bench-programs
	for mode in daemon daemon-a11y floor sdbus gdbus; do RELEASE=$(RELEASE) scripts/callgrind-per-call.sh $$mode || exit 1; done

# The daemon's two modes of `make profile` only, against Benchmarks/thresholds and against a stale
# scripts/snapsized.order (part of `make test`: about 45 seconds under valgrind, on the release build
# `make programs` made; scripts/link-order.sh remakes the order file).
profile-check: test-deps programs
	$(A11Y_LISTENER)
	for mode in daemon daemon-a11y; do RELEASE=$(RELEASE) scripts/callgrind-per-call.sh $$mode || exit 1; done

# Built as `make programs` and the package build them, without the $$ORIGIN run path SwiftPM adds
# otherwise: with it, the dynamic linker would first look for libc and libm beside snapsized (some 40
# failed opens and stats at every start, which the installed daemon never makes; exec -> name owned).
bench-programs: bench-deps
	$(SWIFT) build -c release --disable-local-rpath
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-floor Benchmarks/floor/floor.c $$(pkg-config --cflags --libs dbus-1)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-first-call Benchmarks/first-call/first-call.c \
	    $$(pkg-config --cflags --libs dbus-1)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-sdbus-peer Benchmarks/peers/sdbus-peer.c \
	    $$(pkg-config --cflags --libs libsystemd)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-gdbus-peer Benchmarks/peers/gdbus-peer.c \
	    $$(pkg-config --cflags --libs gio-2.0)
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapcore-bench-c Benchmarks/core/index-at.c -lm
	cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-plain-gtk4 Benchmarks/panel/plain-gtk4.c $$(pkg-config --cflags --libs gtk4)
	$(A11Y_LISTENER)

# A libatspi client that listens for the slider's value events (make bench, make profile).
A11Y_LISTENER = cc $(BENCH_CFLAGS) -o $(RELEASE)/snapsize-a11y-listener Benchmarks/listener/listener.c \
	    $$(pkg-config --cflags --libs atspi-2) -lgobject-2.0 -lglib-2.0

# Micro-benchmark of SnapCore (ns per index(at:) and per state transition).
bench-core: build-deps
	$(SWIFT) build -c release --product snapcore-bench
	$(RELEASE)/snapcore-bench

# Installing, the way Debian software does. `make install` (PREFIX, default ~/.local; DESTDIR for
# staging) puts the stripped binaries in bin/, the D-Bus activation file and the systemd user unit where
# the session looks for them (pointing at the installed binary, so a plain `gdbus call` starts it), the
# man pages, the bash, zsh and fish completions and the translations under share/. `make uninstall`
# removes exactly those files. The three programs (snapsized, snapsizectl, snapsize-panel) link the
# Swift runtime statically. The panel's menu entry names it by its installed path, as the activation
# file names snapsized (~/.local/bin is not on every session's PATH).
DESTDIR    ?=
BINDIR      = $(PREFIX)/bin
DATADIR     = $(PREFIX)/share
# systemd reads user units from <prefix>/lib/systemd/user for /usr and /usr/local, else from
# $XDG_DATA_HOME/systemd/user (~/.local/share).
USERUNITDIR = $(if $(filter /usr /usr/local,$(PREFIX)),$(PREFIX)/lib/systemd/user,$(DATADIR)/systemd/user)
# Generated by `make programs`: man pages, completions and .mo catalogs, in the layout of share/ (the
# man pages name the guide where this PREFIX installs it).
GENERATED  := .build/generated
COMPLETIONS = bash-completion/completions/snapsizectl bash-completion/completions/snapsized \
              zsh/vendor-completions/_snapsizectl zsh/vendor-completions/_snapsized \
              fish/vendor_completions.d/snapsizectl.fish fish/vendor_completions.d/snapsized.fish
MANPAGES    = man/man1/snapsizectl.1.gz man/man1/snapsized.1.gz
# The user guide (GUIDE.md): first steps, keyboard shortcuts on GNOME, KDE Plasma and window managers.
DOCS        = doc/snapsize/GUIDE.md.gz
# The panel: its program, its man page and its entry in the desktop's application list (translated
# from po/ by msgfmt --desktop). `make deb` puts them in a package of their own, snapsize-panel.
PANEL_FILES = bin/snapsize-panel share/man/man1/snapsize-panel.1.gz share/applications/snapsize-panel.desktop
INSTALLED   = $(BINDIR)/snapsized $(BINDIR)/snapsizectl \
              $(DATADIR)/dbus-1/services/$(ACTIVATION_FILE) $(USERUNITDIR)/snapsized.service \
              $(addprefix $(DATADIR)/,$(MANPAGES) $(COMPLETIONS) $(DOCS)) $(addprefix $(PREFIX)/,$(PANEL_FILES))

# The two programs (no $$ORIGIN run path: nothing is loaded from beside them) and the generated files.
programs: build-deps
	$(SWIFT) build -c release --disable-local-rpath --product snapsized
	$(SWIFT) build -c release --disable-local-rpath --product snapsizectl
	$(SWIFT) build -c release --disable-local-rpath --product snapsize-docs
	$(SWIFT) build -c release --disable-local-rpath --product snapsize-panel
	rm -rf $(GENERATED)
	LC_ALL=C.UTF-8 LANGUAGE= $(RELEASE)/snapsize-docs $(GENERATED) --guide=$(DATADIR)/$(DOCS)
	cp packaging/panel/snapsize-panel.1 $(GENERATED)/man/man1/
	gzip -9n $(GENERATED)/man/man1/*.1
	mkdir -p $(GENERATED)/po $(GENERATED)/applications && cp po/*.po $(GENERATED)/po/ && echo $(LANGUAGES) > $(GENERATED)/po/LINGUAS
	msgfmt --desktop --template=packaging/panel/snapsize-panel.desktop -d $(GENERATED)/po \
	    -o $(GENERATED)/applications/snapsize-panel.desktop
	rm -rf $(GENERATED)/po
	mkdir -p $(GENERATED)/doc/snapsize && gzip -9nc GUIDE.md > $(GENERATED)/$(DOCS)
	@$(MAKE) --no-print-directory catalogs LOCALEDIR=$(GENERATED)/locale

install: programs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/dbus-1/services $(DESTDIR)$(USERUNITDIR)
	install -s -m 755 $(RELEASE)/snapsized $(RELEASE)/snapsizectl $(RELEASE)/snapsize-panel $(DESTDIR)$(BINDIR)/
	sed 's|^Exec=.*|Exec=$(BINDIR)/snapsized|' dbus/$(ACTIVATION_FILE) \
	    > $(DESTDIR)$(DATADIR)/dbus-1/services/$(ACTIVATION_FILE)
	sed 's|^ExecStart=.*|ExecStart=$(BINDIR)/snapsized|' dbus/snapsized.service \
	    > $(DESTDIR)$(USERUNITDIR)/snapsized.service
	chmod 644 $(DESTDIR)$(DATADIR)/dbus-1/services/$(ACTIVATION_FILE) $(DESTDIR)$(USERUNITDIR)/snapsized.service
	cd $(GENERATED) && for file in $(MANPAGES) man/man1/snapsize-panel.1.gz applications/snapsize-panel.desktop $(COMPLETIONS) \
	                             $(DOCS) $$(find locale -name '*.mo' 2>/dev/null); do \
	  install -D -m 644 $$file $(DESTDIR)$(DATADIR)/$$file || exit 1; \
	done
	sed -i 's|^Exec=.*|Exec=$(BINDIR)/snapsize-panel|' $(DESTDIR)$(DATADIR)/applications/snapsize-panel.desktop
	@echo "Installed. Try: gdbus call --session --dest org.snapsize.SizeSelector1 \\"
	@echo "  --object-path /org/snapsize/SizeSelector1 --method org.snapsize.SizeSelector1.Increment"
	@echo "Or open the panel (the article's control in a window): snapsize-panel"

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED)) $(DESTDIR)$(DATADIR)/locale/*/LC_MESSAGES/snapsize.mo

# Two Debian binary packages in .build/: `make install` into a staging root with PREFIX=/usr, then
# scripts/build-deb.sh, which moves the panel's files (PANEL_FILES) into a package of their own, so that
# the daemon and snapsizectl do not pull GTK (Depends from dpkg-shlibdeps, dpkg-deb), then lintian.
deb: package-deps
	rm -rf .build/deb
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/.build/deb/debian/snapsize
	PANEL_FILES="$(PANEL_FILES)" scripts/build-deb.sh .build/deb
	lintian --fail-on error --tag-display-limit 0 .build/deb/snapsize_*.deb .build/deb/snapsize-panel_*.deb

# `make test` builds, runs, tests and packages.
TESTING_DEPS = $(BUILD_DEPS) $(RUN_DEPS) $(TEST_DEPS) $(KEYS_TEST_DEPS) $(PANEL_TEST_DEPS) $(PACKAGE_DEPS)
# Each installs only what is missing, so a machine that has everything is never touched.
build-deps:
	@$(call install-missing,$(BUILD_DEPS))
run-deps:
	@$(call install-missing,$(BUILD_DEPS) $(RUN_DEPS))
package-deps:
	@$(call install-missing,$(BUILD_DEPS) $(PACKAGE_DEPS))
test-deps:
	@$(call install-missing,$(TESTING_DEPS))
bench-deps:
	@$(call install-missing,$(TESTING_DEPS) $(BENCH_DEPS))
stress-deps:
	@$(call install-missing,$(TESTING_DEPS) $(STRESS_DEPS))
deps-list:
	@printf '%s\n' "build:   $(BUILD_DEPS)" "run:     $(RUN_DEPS)" "test:    $(TEST_DEPS) $(KEYS_TEST_DEPS) $(PANEL_TEST_DEPS)" \
	    "package: $(PACKAGE_DEPS)" "bench:   $(BENCH_DEPS)" "stress:  $(STRESS_DEPS)"

# $(1): packages, installed without their recommended packages.
define install-missing
	missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

clean:
	rm -rf .build
