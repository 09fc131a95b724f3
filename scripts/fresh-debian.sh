#!/bin/sh
# The README's set-up, tried as a newcomer would (make stress; needs root and debootstrap): a fresh
# Debian minbase system made with debootstrap, the Swift toolchain mounted into it read-only, then
# only what the README's first lines say (apt-get install make), then its two commands:
#   run-then-test  `make run` until it prints the address and `snapsizectl get` answers, Ctrl-C (a SIGINT
#                  to its process group, as a terminal sends), which must stop it with nothing that reads
#                  like a fault; then `make test` in the same system;
#   test           `make test` alone, in another fresh system.
# Each step's time and the number of Debian packages installed are printed. The sources are a clone of
# this checkout's HEAD (commit first). Every process started inside is stopped and every mount undone.
#
# Usage: scripts/fresh-debian.sh [run-then-test|test|all] (default all). SUITE (bookworm) picks the
# release; only bookworm fits today: the Makefile names Debian 12's gcc-12 packages.
set -eu

mode=${1:-all}
suite=${SUITE:-bookworm}
mirror=${MIRROR:-http://deb.debian.org/debian}
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "${2:-}" = "--inside" ]; then
    # Inside the fresh system, from /src. Nothing here may rely on more than minbase plus make.
    cd /src
    export PATH="/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/root LANG=C.UTF-8
    packages() { dpkg-query -W -f='${Status}\n' | grep -c "install ok installed"; }
    case $mode in
    run)
        before=$(packages) start=$(date +%s)
        # setsid: its own process group, like a terminal's foreground job (it forks, so the group is
        # named by the pid the shell inside writes); env --default-signal: a job started with & by a
        # non-interactive shell would otherwise ignore SIGINT.
        rm -f /tmp/run.pgid
        setsid sh -c 'echo $$ >/tmp/run.pgid; exec env --default-signal=INT make run' >/tmp/run.log 2>&1 </dev/null &
        while [ ! -s /tmp/run.pgid ]; do sleep 0.1; done
        job=$(cat /tmp/run.pgid)
        address=""
        while kill -0 "$job" 2>/dev/null; do
            address=$(sed -n "s/^ *export DBUS_SESSION_BUS_ADDRESS='\(.*\)'$/\1/p" /tmp/run.log)
            [ -n "$address" ] && break
            sleep 1
        done
        [ -n "$address" ] || { cat /tmp/run.log; echo "fresh-debian: make run never printed an address" >&2; exit 1; }
        answer=""
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            answer=$(DBUS_SESSION_BUS_ADDRESS=$address .build/release/snapsizectl get 2>&1) && break
            sleep 1
        done
        ready=$(date +%s)
        kill -INT "-$job"
        for _ in $(seq 1 60); do kill -0 "$job" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$job" 2>/dev/null; then status="still running 30 s after Ctrl-C"; else status=stopped; fi
        after=$(packages)
        tail -n 20 /tmp/run.log
        echo "fresh-debian: make run: address and 'snapsizectl get' -> '$answer' after $((ready - start)) s;" \
             "$((after - before)) packages installed ($after in all); $status after Ctrl-C"
        [ "$answer" = 60 ] || { echo "fresh-debian: snapsizectl get did not answer 60" >&2; exit 1; }
        [ "$status" = stopped ] || exit 1
        # What snapsized prints after the address is a fault (the session bus went away, ...).
        if sed -n '/Ctrl-C stops snapsized/,$p' /tmp/run.log | grep -q '^snapsized:'; then
            echo "fresh-debian: snapsized printed after Ctrl-C:" >&2
            sed -n '/Ctrl-C stops snapsized/,$p' /tmp/run.log | grep '^snapsized:' >&2
            exit 1
        fi
        ;;
    test)
        before=$(packages) start=$(date +%s)
        status=0; make test >/tmp/test.log 2>&1 </dev/null || status=$?
        after=$(packages) end=$(date +%s)
        grep -E "Test run with|passed|failed|error:|Error " /tmp/test.log | tail -n 25
        echo "fresh-debian: make test: exit $status in $((end - start)) s; $((after - before)) packages" \
             "installed ($after in all)"
        if [ "$status" -ne 0 ]; then
            grep -E "recorded an issue|error:" /tmp/test.log | head -n 40
            tail -n 30 /tmp/test.log
            exit "$status"
        fi
        ;;
    esac
    exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "fresh-debian: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
swift=$(command -v swift) || { echo "fresh-debian: no swift on PATH" >&2; exit 1; }
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift")")")")   # .../usr/bin/swift -> ...

top=$(mktemp -d /var/tmp/snapsize-fresh.XXXXXX)
root="$top/root"
# Kept between runs, so that a second run does not download Debian again; the packages are still
# installed by the steps themselves.
cache=/var/cache/snapsize-fresh
mkdir -p "$cache/debootstrap" "$cache/apt"

# Every process whose root is the fresh system was started by this script (through chroot).
stop_inside() {
    for signal in TERM KILL; do
        for proc in /proc/[0-9]*; do
            [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && kill -s "$signal" "${proc#/proc/}" 2>/dev/null
        done
        sleep 1
    done
}
mounted() { awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r; }
cleanup() {
    trap - EXIT INT TERM
    stop_inside || true
    for target in $(mounted); do umount -l "$target" 2>/dev/null || true; done
    if [ -n "$(mounted)" ]; then
        echo "fresh-debian: still mounted under $root; left in place:" $(mounted) >&2
    else
        rm -rf --one-file-system "$top"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fresh() {   # fresh NAME: a new minbase system at $root, ready to chroot into
    stop_inside || true
    for target in $(mounted); do umount -l "$target"; done
    rm -rf --one-file-system "$root"
    start=$(date +%s)
    debootstrap --variant=minbase --cache-dir="$cache/debootstrap" "$suite" "$root" "$mirror" >"$top/debootstrap.log" 2>&1 ||
        { tail -n 20 "$top/debootstrap.log"; exit 1; }
    # The system's root a mount point of its own, as on a real machine (unshare --mount-proc, which
    # PidReuseTests uses, refuses a root that is not one).
    mount --bind "$root" "$root"
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --rbind /dev "$root/dev"
    mount --make-rslave "$root/dev"
    mkdir -p "$root/opt/swift" "$root/var/cache/apt/archives"
    mount --bind "$toolchain" "$root/opt/swift"
    mount -o remount,bind,ro "$root/opt/swift"
    mount --bind "$cache/apt" "$root/var/cache/apt/archives"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    git clone -q --no-hardlinks "$repo" "$root/src"
    echo "fresh-debian: $1: $suite minbase in $(($(date +%s) - start)) s," \
         "$(chroot "$root" dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed') packages"
    # The README's first line: the one prerequisite beside the toolchain.
    inside sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make >/dev/null'
}
inside() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb "$@"
}

case $mode in
run-then-test|all)
    fresh "make run, then make test"
    inside sh /src/scripts/fresh-debian.sh run --inside
    inside sh /src/scripts/fresh-debian.sh test --inside
    ;;
esac
case $mode in
test|all)
    fresh "make test alone"
    inside sh /src/scripts/fresh-debian.sh test --inside
    ;;
esac
