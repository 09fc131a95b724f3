#!/bin/bash
# Builds (once) a Debian 13 (trixie) chroot holding Orca 48 and what it needs to run headless:
# at-spi2-core, pyatspi, GTK 3 (for the focus-holding window), Xvfb and a session bus.
# `make test-orca48` runs it; a finished chroot is reused (marker file), a half-built one is redone.
# Usage: scripts/orca48-chroot.sh [DIR]   (default /var/tmp/snapsize-trixie)
set -euo pipefail
root=${1:-${ORCA48_ROOT:-/var/tmp/snapsize-trixie}}
marker="$root/.snapsize-ready"
mirror=${ORCA48_MIRROR:-http://deb.debian.org/debian}
packages=orca,at-spi2-core,python3-pyatspi,gir1.2-gtk-3.0,python3-gi,xvfb,dbus,dbus-x11,x11-utils
# GNOME's keybinding schemas (the Makefile's KEYS_TEST_DEPS): KeysTests checks the suggested keys against
# Debian 13's defaults too.
keys_packages=gsettings-desktop-schemas,gnome-settings-daemon-common,mutter-common,gnome-shell-common
packages=$packages,$keys_packages
# GTK 4 (Debian 13's 4.18): the panel runs from the chroot in OrcaTests/panelScenario, where its track is
# a GtkAccessibleRange with an AT-SPI Value (GTK 4.10+).
packages=$packages,libgtk-4-1

if [ -e "$marker" ]; then echo "orca48 chroot: $root (ready)"; exit 0; fi
if [ "$(id -u)" -ne 0 ]; then echo "orca48 chroot: building it needs root" >&2; exit 1; fi
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap \
  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
# A half-built tree from an interrupted run: start over (nothing may be mounted inside).
if [ -d "$root" ]; then
  if grep -q " $root/" /proc/mounts; then echo "orca48 chroot: $root has mounts, not touching it" >&2; exit 1; fi
  rm -rf "$root"
fi
mkdir -p "$root"
# debootstrap 1.0.128 (Debian 12) does not resolve virtual packages (Provides: gir1.2-cairo-1.0,
# gir1.2-xlib-2.0, dbus-session-bus), so its second stage stops; apt inside the chroot finishes the job.
debootstrap --variant=minbase --include="$packages" trixie "$root" "$mirror" || echo "orca48 chroot: debootstrap stopped; finishing with apt"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod 755 "$root/usr/sbin/policy-rc.d"
echo "deb $mirror trixie main" > "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount --bind /proc "$root/proc"
trap 'umount "$root/proc"' EXIT
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
in_root dpkg --configure -a || true
in_root apt-get update -qq
in_root apt-get install -y -qq -f gir1.2-freedesktop dbus-x11
in_root dpkg --configure -a
in_root apt-get install -y -qq ${packages//,/ }
in_root apt-get clean
in_root orca --version
touch "$marker"
echo "orca48 chroot: $root ready"
