#!/bin/sh
# A new client's first call, servers side by side, many pairs in a few seconds: what `make bench`'s
# first-call row measures, alone, for comparing two daemon builds (or a build and the floor) more
# finely than a whole bench run. Each SERVER gets a private session bus of its own in a fresh folder
# (never the desktop's); its state and history live on tmpfs (/dev/shm). Everything is stopped by PID.
#
#   make bench-programs
#   scripts/first-call-ab.sh [ROUNDS] SERVER...    SERVER: floor, or the path of a snapsized build
#   e.g. scripts/first-call-ab.sh 300 floor .build/release/snapsized /var/tmp/old/snapsized
#
# Prints, per server, the first call's p50 and p90 and its ratio to the first server's
# (Benchmarks/first-call/first-call.c). GAP_US=N sleeps N microseconds between calls (an idle moment).
set -eu
release=${RELEASE:-.build/release}
rounds=300
case "${1:-}" in [0-9]*) rounds=$1; shift ;; esac
[ $# -ge 1 ] || { echo "usage: $0 [ROUNDS] floor|SNAPSIZED..." >&2; exit 64; }
for program in "$release/snapsize-first-call" "$release/snapsize-floor"; do
    [ -x "$program" ] || { echo "$0: $program is missing: run make bench-programs" >&2; exit 69; }
done

work=$(mktemp -d /dev/shm/snapsize-first-call.XXXXXX)
pids=""
trap 'for pid in $pids; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
unset DISPLAY WAYLAND_DISPLAY AT_SPI_BUS_ADDRESS 2>/dev/null || true

addresses=""
index=0
for server in "$@"; do
    home="$work/$index"
    mkdir -p -m 700 "$home/run"
    dbus-daemon --session --fork --print-address=1 --print-pid=1 --address="unix:dir=$home/run" >"$home/bus"
    address=$(sed -n 1p "$home/bus")
    pids="$pids $(sed -n 2p "$home/bus")"
    if [ "$server" = floor ]; then
        DBUS_SESSION_BUS_ADDRESS=$address "$release/snapsize-floor" --name org.snapsize.SizeSelector1 \
            --state "$home/state" &
    else
        DBUS_SESSION_BUS_ADDRESS=$address HOME=$home XDG_RUNTIME_DIR=$home/run XDG_STATE_HOME=$home/state-home \
            "$server" --no-accessibility --state-file "$home/state" >"$home/log" 2>&1 &
    fi
    pids="$pids $!"
    # Served once the name has an owner (at most 10 s).
    tries=0
    until DBUS_SESSION_BUS_ADDRESS=$address gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
        -m org.freedesktop.DBus.NameHasOwner org.snapsize.SizeSelector1 2>/dev/null | grep -q true; do
        tries=$((tries + 1))
        [ $tries -lt 100 ] || { echo "$0: $server did not take its name" >&2; exit 1; }
        sleep 0.1
    done
    addresses="$addresses $address"
    index=$((index + 1))
done
# shellcheck disable=SC2086 # one argument per address
"$release/snapsize-first-call" "$rounds" $addresses
