#!/bin/sh
# `make profile`: instructions per Increment/Decrement in a server's serving loop, counted by
# valgrind --tool=callgrind (stable on a noisy machine, unlike time). The counts docs/PERFORMANCE.md
# quotes come from here. A mode listed in Benchmarks/thresholds fails (exit 1)
# when it counts more than the figure there (`make test` checks daemon and daemon-a11y).
#
#   scripts/callgrind-per-call.sh daemon        snapsized --no-accessibility
#   scripts/callgrind-per-call.sh daemon-a11y   snapsized with its slider, a libatspi listener attached
#   scripts/callgrind-per-call.sh floor         Benchmarks/floor/floor.c
#   scripts/callgrind-per-call.sh sdbus         Benchmarks/peers/sdbus-peer.c (sd_event_loop)
#   scripts/callgrind-per-call.sh gdbus         Benchmarks/peers/gdbus-peer.c (g_main_loop_run: the main
#                                               thread and GDBus's worker thread, which runs one too)
#
# Everything runs on private buses in a temp dir and is stopped by PID. Only the serving loop is
# counted (--toggle-collect), so start-up does not blur the figure. Keeps the callgrind file when
# KEEP=DIR is given, for callgrind_annotate. For the daemon it also fails when scripts/snapsized.order
# is stale: more than 3% of the functions its serving loop ran are missing from it.
set -eu
bin=${RELEASE:-.build/release}
mode=${1:-daemon}
calls=2000

name=snapsize-cg; . "$(dirname "$0")/private-bus.sh"
# The serving loop: DBusKit's EventLoop.run (its mangled name) or the floor's libdbus loop.
case "$mode" in
    daemon) program="$bin/snapsized --no-accessibility --state-file $work/state"; loop='$s7DBusKit9EventLoopC3runyyF' ;;
    daemon-a11y) program="$bin/snapsized --state-file $work/state"; loop='$s7DBusKit9EventLoopC3runyyF' ;;
    floor) program="$bin/snapsize-floor --name org.snapsize.SizeSelector1 --state $work/state"
           loop=dbus_connection_read_write_dispatch ;;
    sdbus) program="$bin/snapsize-sdbus-peer --name org.snapsize.SizeSelector1 --state $work/state"; loop=sd_event_loop ;;
    gdbus) program="$bin/snapsize-gdbus-peer --name org.snapsize.SizeSelector1 --state $work/state"; loop=g_main_loop_run ;;
    *) echo "usage: $0 daemon|daemon-a11y|floor|sdbus|gdbus" >&2; exit 64 ;;
esac

if [ "$mode" = daemon-a11y ]; then
    listener="$bin/snapsize-a11y-listener"; . "$(dirname "$0")/accessibility-stack.sh"
fi

# shellcheck disable=SC2086 # $program is the command and its options
valgrind --tool=callgrind --demangle=no --toggle-collect="$loop" --callgrind-out-file="$work/callgrind.out" \
    $program >"$work/server.log" 2>&1 &
server=$!
pids="$server $pids"

/usr/bin/python3 - "$calls" <<'PY'
import sys, time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
name, path = "org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1"
for _ in range(300):  # valgrind makes start-up slow
    owner = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                          GLib.Variant("(s)", (name,)), None, Gio.DBusCallFlags.NONE, 5000, None)
    if owner.unpack()[0]:
        break
    time.sleep(0.1)
for i in range(int(sys.argv[1])):
    bus.call_sync(name, path, name, "Increment" if i % 2 == 0 else "Decrement", None, None,
                  Gio.DBusCallFlags.NONE, 20000, None)
PY

kill -TERM "$server"
wait "$server" || true
total=$(sed -n 's/^summary: *//p' "$work/callgrind.out")
if [ -z "$total" ] || [ "$total" -eq 0 ]; then
    echo "callgrind counted nothing inside $loop: was it renamed?" >&2; cat "$work/server.log" >&2; exit 1
fi
[ -n "${KEEP:-}" ] && cp "$work/callgrind.out" "$KEEP/callgrind.$mode.out"
perCall=$((total / calls))
echo "$mode: $perCall instructions per call in the serving loop ($calls calls, valgrind --tool=callgrind)"
limit=$(awk -v mode="$mode" '$1 == mode { print $2 }' "$(dirname "$0")/../Benchmarks/thresholds")
if [ -n "$limit" ] && [ "$perCall" -gt "$limit" ]; then
    echo "$mode: $perCall instructions per call is above the threshold of $limit (Benchmarks/thresholds)" >&2
    exit 1
fi

# A stale order file costs no instructions, only memory: the functions it misses lie scattered over
# the program's code, and each drags 64 KiB of it into memory (scripts/link-order.sh says why;
# make bench's PSS rows show it). It went stale once by 25% and cost 0.9 MiB of PSS; checked here.
case "$mode" in daemon*)
    awk -v program='/snapsized$' -f "$(dirname "$0")/callgrind-functions.awk" "$work/callgrind.out" >"$work/ran"
    ran=$(wc -l <"$work/ran")
    unordered=$(grep -cvxFf "$(dirname "$0")/snapsized.order" "$work/ran" || true)
    if [ $((unordered * 100)) -gt $((ran * 3)) ]; then
        echo "$mode: $unordered of the $ran functions the serving loop ran are not in scripts/snapsized.order" \
             "(at most 3%): run scripts/link-order.sh after a release build and commit the file; for example:" >&2
        grep -vxFf "$(dirname "$0")/snapsized.order" "$work/ran" | head -5 >&2
        exit 1
    fi
    echo "$mode: $unordered of the $ran functions the serving loop ran are not in scripts/snapsized.order (at most 3%)"
    ;;
esac
