#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-deb.sh DEB: the package as a user gets it (run by `make test` after `make deb`), and
# the snapsize-panel package built beside it (the second half of this file).
# Unpacks it with dpkg -x; checks every file it must carry, that ldd finds only libraries owned by
# Debian packages (no Swift runtime, nothing missing), that the unpacked programs run (--version),
# that man renders its pages without warnings, and that bash-completion's own loader finds the
# completion where the package put it. Exits non-zero, saying what is wrong, on the first failure.
set -euo pipefail
deb=$1
: "${ACTIVATION_FILE:?run by make test, which names the activation file after the contract}"
fail() { echo "check-deb: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/snapsize-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT

dpkg-deb --contents "$deb" | awk '{print $6}' > "$work/contents"
for path in usr/bin/snapsized usr/bin/snapsizectl usr/share/dbus-1/services/$ACTIVATION_FILE \
            usr/lib/systemd/user/snapsized.service usr/share/man/man1/snapsizectl.1.gz usr/share/man/man1/snapsized.1.gz \
            usr/share/bash-completion/completions/snapsizectl usr/share/zsh/vendor-completions/_snapsizectl \
            usr/share/fish/vendor_completions.d/snapsizectl.fish usr/share/doc/snapsize/copyright \
            usr/share/doc/snapsize/GUIDE.md.gz; do
    grep -qx "./$path" "$work/contents" || fail "the package lacks /$path"
done
for po in po/*.po; do
    [ -e "$po" ] || continue
    lang=$(basename "$po" .po)
    grep -qx "./usr/share/locale/$lang/LC_MESSAGES/snapsize.mo" "$work/contents" || fail "the package lacks the $lang translation"
done
depends=$(dpkg-deb --field "$deb" Depends)
case $depends in *libdbus-1-3*) ;; *) fail "Depends lacks libdbus-1-3: $depends" ;; esac
case $depends in *swift*) fail "Depends names a Swift package: $depends" ;; esac
case $depends in *gtk*) fail "the daemon's package depends on GTK, which only snapsize-panel needs: $depends" ;; esac
grep -q "snapsize-panel" "$work/contents" && fail "the daemon's package carries the panel's files: $(grep snapsize-panel "$work/contents")"
case $depends in *"libc6 (>= 2.36)"*) ;; *) fail "Depends lacks libc6 (>= 2.36), which DT_RELR needs: $depends" ;; esac
# Both programs carry the C++ runtime statically (libstdc++, libgcc), and snapsizectl libdbus: Built-Using
# names their sources, and nothing else.
built_using=$(dpkg-deb --field "$deb" Built-Using)
case $built_using in "dbus (= "*"), gcc-12 (= "*")") ;; *) fail "Built-Using is not dbus and gcc-12: $built_using" ;; esac
# Hardening (PIE, bind now, relro): lintian's word, and no error of any kind.
lintian_tags=$(lintian --tag-display-limit 0 "$deb" 2>&1) || true
echo "$lintian_tags" | grep -E "^E: " && fail "lintian reports errors"
echo "$lintian_tags" | grep -E "^[EW]: .*hardening" && fail "lintian reports a hardening problem"
echo "$lintian_tags" | grep -E "^W: " && fail "lintian warns"

dpkg -x "$deb" "$work/root"
for program in snapsized snapsizectl; do
    binary=$work/root/usr/bin/$program
    file "$binary" | grep -q "stripped" && ! file "$binary" | grep -q "not stripped" || fail "$program is not stripped"
    ldd "$binary" > "$work/ldd" || fail "ldd $program failed"
    grep -q "not found" "$work/ldd" && fail "$program: a library is missing: $(grep 'not found' "$work/ldd")"
    grep -qi "swift" "$work/ldd" && fail "$program links a Swift library dynamically: $(grep -i swift "$work/ldd")"
    for library in $(awk '$2 == "=>" && $3 ~ /^\// {print $3}' "$work/ldd"); do
        dpkg -S "$library" > /dev/null 2>&1 || dpkg -S "$(readlink -f "$library")" > /dev/null 2>&1 \
            || fail "$program needs $library, which no Debian package owns"
    done
    # The daemon loads libdbus (with the libsystemd it needs), so that Debian's security updates reach it
    # at once: no copy of its code inside (DBUS_COOKIE_SHA1 is the name of one of its authentication
    # mechanisms, only in its own code). The key press's snapsizectl carries it, and loads neither.
    if [ "$program" = snapsized ]; then
        grep -q "libdbus-1.so.3 => /" "$work/ldd" || fail "$program does not load the system's libdbus-1.so.3"
        grep -aq DBUS_COOKIE_SHA1 "$binary" && fail "$program carries a copy of libdbus"
    else
        grep -E "libdbus|libsystemd" "$work/ldd" && fail "$program loads libdbus or libsystemd, which it should carry or not need"
        grep -aq DBUS_COOKIE_SHA1 "$binary" || fail "$program carries no copy of libdbus"
    fi
    # Both carry the C++ runtime the Swift runtime needs (Package.swift, staticRuntimeLinking).
    grep -E "libstdc\+\+|libgcc_s" "$work/ldd" && fail "$program loads a C++ runtime it should carry statically"
    # Position-independent (ASLR: any session client can talk to the daemon), every symbol bound at start.
    LC_ALL=C readelf -h "$binary" | grep -Eq "Type: +DYN" || fail "$program is not position-independent: $(LC_ALL=C readelf -h "$binary" | grep Type)"
    LC_ALL=C readelf -d "$binary" | grep -q "BIND_NOW" || fail "$program is not linked -z now"
    LC_ALL=C readelf -lW "$binary" | grep -q "GNU_RELRO" || fail "$program has no RELRO segment"
    version=$(env -i PATH=/usr/bin:/bin "$binary" --version) || fail "$program --version failed"
    [ "$version" = "$program $(dpkg-deb --field "$deb" Version)" ] || fail "$program --version said '$version'"
done
# The licence: a machine-readable copyright file, Apache-2.0 through Debian's copy of the text, and
# the licences of what the programs carry statically (the Swift runtime, the C++ runtime, libdbus).
copyright=$work/root/usr/share/doc/snapsize/copyright
head -1 "$copyright" | grep -qx "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" \
    || fail "the copyright file is not machine-readable (DEP-5)"
grep -qx "License: Apache-2.0" "$copyright" && grep -q "/usr/share/common-licenses/Apache-2.0" "$copyright" \
    || fail "the copyright file does not give the Apache License 2.0"
grep -q "^License: .*Apache-2.0 with Swift-exception" "$copyright" || fail "the copyright file does not name the Swift runtime's licence"
grep -q "^License: .*GPL-3+ with GCC-exception-3.1" "$copyright" || fail "the copyright file does not name the C++ runtime's licence"
grep -q "^License: .*(GPL-2+ or AFL-2.1)" "$copyright" && grep -qx "License: AFL-2.1" "$copyright" \
    || fail "the copyright file does not give libdbus's licence, which snapsizectl carries"
grep -qx "Exec=/usr/bin/snapsized" "$work/root/usr/share/dbus-1/services/$ACTIVATION_FILE" \
    || fail "the activation file does not start /usr/bin/snapsized"

for page in "$work"/root/usr/share/man/man1/*.1.gz; do
    warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 > /dev/null)
    [ -z "$warnings" ] || fail "man warns about $(basename "$page"): $warnings"
    # Read in an 80-column terminal (screen-reader and braille users read man there): no line wider.
    wide=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$page" 2>/dev/null | awk 'length > 80')
    [ -z "$wide" ] || fail "$(basename "$page") has lines over 80 columns: $wide"
done
# The user guide says how to bind the commands to keys on GNOME, KDE Plasma and a window manager.
guide=$(zcat "$work/root/usr/share/doc/snapsize/GUIDE.md.gz")
for needle in "Custom Shortcuts" "snapsizectl keys --apply" "KDE Plasma" "bindsym" "snapsizectl inc" "snapsizectl dec" \
              "snapsizectl undo" "snapsizectl focus"; do
    case $guide in *"$needle"*) ;; *) fail "the user guide does not mention $needle" ;; esac
done
# The man pages point to it where the package installs it.
for page in "$work"/root/usr/share/man/man1/*.1.gz; do
    LC_ALL=C.UTF-8 MANWIDTH=200 man -E UTF-8 -l "$page" 2>/dev/null | grep -q "/usr/share/doc/snapsize/GUIDE.md.gz" \
        || fail "$(basename "$page") does not name /usr/share/doc/snapsize/GUIDE.md.gz"
done

# bash-completion's loader, looking in the unpacked share/ as it looks in /usr/share.
offered=$(XDG_DATA_DIRS=$work/root/usr/share bash --norc -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion snapsizectl || exit 1
    complete -p snapsizectl >&2
    COMP_WORDS=(snapsizectl stat); COMP_CWORD=1; COMP_LINE="snapsizectl stat"; COMP_POINT=${#COMP_LINE}
    _snapsizectl snapsizectl stat snapsizectl
    echo "${COMPREPLY[@]}"') || fail "bash-completion did not load the snapsizectl completion from the package"
[ "$offered" = "status" ] || fail "bash completed 'snapsizectl stat' to '$offered'"
echo "check-deb: $(basename "$deb") is complete, links only Debian libraries, and runs unpacked"

# snapsize-panel: its own package, depending on this snapsize and on GTK 4; the same checks of its program.
panel_deb=$(ls "$(dirname "$deb")"/snapsize-panel_*.deb 2>/dev/null | head -1)
[ -n "$panel_deb" ] || fail "no snapsize-panel package beside $deb (make deb builds both)"
dpkg-deb --contents "$panel_deb" | awk '{print $6}' > "$work/panel-contents"
for path in usr/bin/snapsize-panel usr/share/applications/snapsize-panel.desktop usr/share/man/man1/snapsize-panel.1.gz \
            usr/share/doc/snapsize-panel/copyright usr/share/doc/snapsize-panel/changelog.gz; do
    grep -qx "./$path" "$work/panel-contents" || fail "snapsize-panel lacks /$path"
done
panel_depends=$(dpkg-deb --field "$panel_deb" Depends)
case $panel_depends in *"snapsize (= $(dpkg-deb --field "$deb" Version))"*) ;; *) fail "snapsize-panel does not depend on this snapsize: $panel_depends" ;; esac
case $panel_depends in *libgtk-4-1*) ;; *) fail "snapsize-panel's Depends lacks libgtk-4-1: $panel_depends" ;; esac
case $panel_depends in *swift*) fail "snapsize-panel's Depends names a Swift package: $panel_depends" ;; esac
lintian_tags=$(lintian --tag-display-limit 0 "$panel_deb" 2>&1) || true
echo "$lintian_tags" | grep -E "^[EW]: " && fail "lintian reports errors or warnings for snapsize-panel"
dpkg -x "$panel_deb" "$work/panel"
binary=$work/panel/usr/bin/snapsize-panel
file "$binary" | grep -q "stripped" && ! file "$binary" | grep -q "not stripped" || fail "snapsize-panel is not stripped"
ldd "$binary" > "$work/ldd" || fail "ldd snapsize-panel failed"
grep -q "not found" "$work/ldd" && fail "snapsize-panel: a library is missing: $(grep 'not found' "$work/ldd")"
grep -qi "swift" "$work/ldd" && fail "snapsize-panel links a Swift library dynamically: $(grep -i swift "$work/ldd")"
grep -q "libgtk-4.so.1 => /" "$work/ldd" || fail "snapsize-panel does not load the system's GTK 4"
LC_ALL=C readelf -h "$binary" | grep -Eq "Type: +DYN" || fail "snapsize-panel is not position-independent"
LC_ALL=C readelf -d "$binary" | grep -q "BIND_NOW" || fail "snapsize-panel is not linked -z now"
# --help needs no display: it runs unpacked on any machine.
env -i PATH=/usr/bin:/bin "$binary" --help | grep -q -- "--grab" || fail "snapsize-panel --help did not give its usage"
desktop=$work/panel/usr/share/applications/snapsize-panel.desktop
grep -qx "Exec=/usr/bin/snapsize-panel" "$desktop" || fail "the desktop entry does not start /usr/bin/snapsize-panel"
for lang in $(ls po/*.po 2>/dev/null | xargs -n1 basename | sed 's/\.po$//'); do
    grep -q "^Name\[$lang\]=" "$desktop" || fail "the desktop entry has no $lang name"
done
warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
    "$work/panel/usr/share/man/man1/snapsize-panel.1.gz" 2>&1 > /dev/null)
[ -z "$warnings" ] || fail "man warns about snapsize-panel.1: $warnings"
echo "check-deb: $(basename "$panel_deb") is complete, depends on snapsize and GTK 4, and runs unpacked"
