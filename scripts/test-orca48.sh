#!/bin/bash
# `make test-orca48`: the Orca scenarios (Tests/AccessibilityTests/OrcaTests.swift) with Orca 48 from a
# Debian 13 chroot, against the snapsized built here; and PidReuseTests with the chroot's dbus-daemon
# 1.16, which gives a caller's process as a pidfd (it mounts what it needs in a namespace of its own). The panel's
# scenario runs snapsize-panel from the chroot too, on its GTK 4.18. The chroot is built once (scripts/orca48-chroot.sh);
# /tmp (buses, X socket, the test's files), /dev/shm and /proc are bind-mounted into it for the run and
# unmounted afterwards, whatever happens. One run at a time (a lock next to the chroot).
set -euo pipefail
root=${ORCA48_ROOT:-/var/tmp/snapsize-trixie}
swift=${SWIFT:-swift}
"$(dirname "$0")/orca48-chroot.sh" "$root"
exec 9>"$root.lock"
flock 9
mounted=()
cleanup() {
  local i
  for (( i=${#mounted[@]}-1; i>=0; i-- )); do umount "${mounted[$i]}" || umount -l "${mounted[$i]}"; done
}
trap cleanup EXIT
for dir in tmp dev/shm proc; do
  mkdir -p "$root/$dir"
  if ! grep -q " $root/$dir " /proc/mounts; then
    mount --bind "/$dir" "$root/$dir"
    mounted+=("$root/$dir")
  fi
done
# A chroot built before a test needed FILE gets PACKAGES now: install_if_missing FILE PACKAGES...
install_if_missing() {
  local file=$1; shift
  [ -e "$root/$file" ] && return
  chroot "$root" env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    apt-get install -y -qq --no-install-recommends "$@"
}
# KeysTests: GNOME's schemas (their triggers compile them).
install_if_missing usr/share/glib-2.0/schemas/org.gnome.shell.gschema.xml \
  gsettings-desktop-schemas gnome-settings-daemon-common mutter-common gnome-shell-common
# The panel's scenario runs the panel from the chroot: GTK 4.
install_if_missing usr/lib/x86_64-linux-gnu/libgtk-4.so.1 libgtk-4-1
$swift build --build-tests
SNAPSIZE_DESKTOP_ROOT="$root" $swift test --skip-build --filter 'OrcaTests/speechScenarios|OrcaTests/panelScenario|KeysTests/schemasCheck|PidReuseTests'
