#!/bin/bash
# scripts/check-install.sh: `make install` honours DESTDIR and PREFIX and installs stripped binaries;
# `make uninstall` with the same variables removes every file it installed (run by `make test`).
set -euo pipefail
: "${ACTIVATION_FILE:?run by make test, which names the activation file after the contract}"
fail() { echo "check-install: $*" >&2; exit 1; }
stage=$(mktemp -d /tmp/snapsize-install.XXXXXX)
trap 'rm -rf "$stage"' EXIT
for prefix in /usr /opt/snapsize; do
    make --no-print-directory -s install PREFIX=$prefix DESTDIR="$stage" > /dev/null
    unit=$([ $prefix = /usr ] && echo lib/systemd/user || echo share/systemd/user)
    for path in bin/snapsized bin/snapsizectl share/dbus-1/services/$ACTIVATION_FILE \
                $unit/snapsized.service share/man/man1/snapsizectl.1.gz share/man/man1/snapsized.1.gz \
                share/bash-completion/completions/snapsizectl share/zsh/vendor-completions/_snapsizectl \
                share/fish/vendor_completions.d/snapsizectl.fish share/doc/snapsize/GUIDE.md.gz \
                bin/snapsize-panel share/man/man1/snapsize-panel.1.gz share/applications/snapsize-panel.desktop; do
        [ -f "$stage$prefix/$path" ] || fail "PREFIX=$prefix: $prefix/$path was not installed under DESTDIR"
    done
    file "$stage$prefix/bin/snapsizectl" | grep -q "not stripped" && fail "snapsizectl was installed unstripped"
    grep -qx "Exec=$prefix/bin/snapsized" "$stage$prefix/share/dbus-1/services/$ACTIVATION_FILE" \
        || fail "the activation file does not point at $prefix/bin/snapsized"
    grep -qx "Exec=$prefix/bin/snapsize-panel" "$stage$prefix/share/applications/snapsize-panel.desktop" \
        || fail "the panel's menu entry does not start $prefix/bin/snapsize-panel"
    make --no-print-directory -s uninstall PREFIX=$prefix DESTDIR="$stage" > /dev/null
    left=$(find "$stage" -type f)
    [ -z "$left" ] || fail "PREFIX=$prefix: make uninstall left: $left"
done
echo "check-install: make install (DESTDIR, PREFIX /usr and /opt/snapsize) and make uninstall agree"
