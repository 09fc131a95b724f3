#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# scripts/build-deb.sh DIR: turns the staged install in DIR/debian/snapsize (make install PREFIX=/usr
# DESTDIR=DIR/debian/snapsize) into DIR/snapsize_VERSION_ARCH.deb and DIR/snapsize-panel_VERSION_ARCH.deb
# with dpkg-deb: the files named in PANEL_FILES (paths under /usr, the Makefile's list) move to the
# second package, so that the daemon's does not pull GTK. Depends comes from dpkg-shlibdeps over each
# package's programs; the control texts are packaging/control and packaging/panel/control.
set -eu
dir=$(cd "$1" && pwd)
root=$dir/debian/snapsize
panel=$dir/debian/snapsize-panel
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^public let snapsizeVersion = "\(.*\)"$/\1/p' "$here/Sources/SnapSettings/Version.swift")
arch=$(dpkg --print-architecture)

for file in ${PANEL_FILES:?names the files of the panel package}; do
    install -d -m 755 "$(dirname "$panel/usr/$file")"
    mv "$root/usr/$file" "$panel/usr/$file"
done
rmdir --ignore-fail-on-non-empty "$root/usr/share/applications"

# What Debian wants beside the programs: the copyright and a changelog (a native package's).
doc=$root/usr/share/doc/snapsize
install -d -m 755 "$doc"
# snapsizectl carries libdbus (Package.swift): the licence texts its stanza names are Debian's own, from
# the copyright file of the libdbus the package was built with.
{ cat "$here/packaging/copyright"
  awk -v RS= '/^License: (GPL-2\+|AFL-2\.1|Expat|Tcl-BSDish)\n/ { printf "\n%s\n", $0 }' \
      /usr/share/doc/libdbus-1-3/copyright
} > "$doc/copyright"
chmod 644 "$doc/copyright"
date=$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}")
printf 'snapsize (%s) unstable; urgency=medium\n\n  * Built by make deb from the snapsize sources.\n\n -- snapsize developers <snapsize@example.org>  %s\n' \
    "$version" "$date" | gzip -9n > "$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"
# The panel's: the same changelog; a copyright file with its own header and the licences it carries
# (packaging/copyright's stanzas for Apache-2.0 and the Swift exception, not copied twice).
panel_doc=$panel/usr/share/doc/snapsize-panel
install -d -m 755 "$panel_doc"
install -m 644 "$doc/changelog.gz" "$panel_doc/changelog.gz"
{ cat "$here/packaging/panel/copyright-header"
  awk -v RS= '/^License: Apache-2.0(\n| with Swift-exception\n)/ { printf "\n%s\n", $0 }' "$here/packaging/copyright"
} > "$panel_doc/copyright"
chmod 644 "$panel_doc/copyright"

# dpkg-shlibdeps reads debian/control from the current directory, and the package's files from debian/snapsize.
printf 'Source: snapsize\n\nPackage: snapsize\nArchitecture: any\n\nPackage: snapsize-panel\nArchitecture: any\n' > "$dir/debian/control"
depends=$(cd "$dir" && dpkg-shlibdeps -O debian/snapsize/usr/bin/snapsized debian/snapsize/usr/bin/snapsizectl | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# snapsized's packed relative relocations (DT_RELR) need glibc 2.36; the loader says so through the
# version GLIBC_ABI_DT_RELR, which dpkg-shlibdeps does not turn into a version of libc6.
if readelf -VW "$root/usr/bin/snapsized" | grep -q GLIBC_ABI_DT_RELR; then
    libc=$(echo "$depends" | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
    if [ -n "$libc" ] && dpkg --compare-versions "$libc" lt 2.36; then
        depends=$(echo "$depends" | sed "s/libc6 (>= $libc)/libc6 (>= 2.36)/")
    fi
fi

# Both programs link the C++ runtime statically, and snapsizectl libdbus (Package.swift): their source
# packages, as Debian records static linking, so that the archive keeps the sources the binaries were
# built from and a security update of them is known to need a rebuild. (The Swift runtime, static too,
# has no Debian package to name.)
built_using=$(dpkg-query -W -f='${source:Package} (= ${source:Version})\n' libstdc++-12-dev libgcc-12-dev libdbus-1-dev \
    | sort -u | paste -sd, - | sed 's/,/, /g')
[ -n "$built_using" ] || { echo "build-deb: cannot tell the source packages of the static libraries" >&2; exit 1; }

install -d -m 755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
    -e "s/@BUILT_USING@/$built_using/" \
    "$here/packaging/control" > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +

dpkg-deb --root-owner-group -Zxz --build "$root" "$dir/snapsize_${version}_${arch}.deb"

# snapsize-panel: Depends on the daemon's package of the same version (the panel is its client, and the
# translations it speaks with are there) and on what dpkg-shlibdeps finds (GTK 4, GLib, libc...).
panel_depends=$(cd "$dir" && dpkg-shlibdeps -O debian/snapsize-panel/usr/bin/snapsize-panel | sed -n 's/^shlibs:Depends=//p')
case $panel_depends in *libgtk-4-1*) ;; *) echo "build-deb: snapsize-panel's Depends lacks libgtk-4-1: $panel_depends" >&2; exit 1 ;; esac
install -d -m 755 "$panel/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$panel" | cut -f1)
sed -e "s/@VERSION@/$version/g" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$panel_depends/" \
    "$here/packaging/panel/control" > "$panel/DEBIAN/control"
(cd "$panel" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$panel/DEBIAN/md5sums"
chmod 644 "$panel/DEBIAN/control" "$panel/DEBIAN/md5sums"
find "$panel" -type d -exec chmod 755 {} +
dpkg-deb --root-owner-group -Zxz --build "$panel" "$dir/snapsize-panel_${version}_${arch}.deb"
