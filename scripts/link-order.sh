#!/bin/sh
# Regenerates scripts/snapsized.order: the functions snapsized runs, as callgrind saw them, one symbol
# a line. The linker (lld, Package.swift) places them together at the start of the program's code.
# Why it matters: the kernel maps a program's code 64 KiB at a time around each page it touches
# (fault-around), so every scattered function costs up to 16 pages of resident memory. Ordered, the
# daemon's own code sits in a few such windows. (The Swift standard library's main code section is
# one input section and cannot be reordered: the functions of it that run still cost a window each.)
#
# Two passes, the first without the accessible slider (`--no-accessibility`, as `make bench` measures
# memory), the second with the whole accessibility stack and a listener; the second pass only adds
# what the first did not run, so a daemon without its slider touches only the first part. Each pass
# runs the same workload: start-up; every method from new clients (each `gdbus call` is one, with
# its identity lookup); a long-lived client's run of calls and a pipelined burst of 32 (group
# commit); 32 clients at once; undo, redo and the history; a reload (SIGHUP); the history's write
# after a quiet 0.1 s; an orderly stop (SIGTERM).
#
# A stale file only costs memory, never correctness: symbols it names that no longer exist are
# ignored. Run it after changes to what runs (`make bench` shows the memory), and commit the file.
#   scripts/link-order.sh        (RELEASE=.build/release by default)
set -eu
release=${RELEASE:-.build/release}
bin=$release/snapsized
name=snapsize-order; . "$(dirname "$0")/private-bus.sh"

call() { gdbus call --session -d org.snapsize.SizeSelector1 -o /org/snapsize/SizeSelector1 -m "$@" >/dev/null 2>&1 || true; }
selector() { member=$1; shift; call "org.snapsize.SizeSelector1.$member" "$@"; }

workload() {
    for _ in $(seq 100); do
        gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner \
            org.snapsize.SizeSelector1 2>/dev/null | grep -q true && break
        sleep 0.2
    done
    for _ in $(seq 5); do
        selector Increment; selector Decrement; selector SetSize 40; selector StepBy 2; selector SetIndex 1
    done
    selector Undo; selector Undo; selector Redo; selector GetHistory 10
    call org.freedesktop.DBus.Properties.GetAll org.snapsize.SizeSelector1
    call org.freedesktop.DBus.Properties.Get org.snapsize.SizeSelector1 ValueText
    call org.freedesktop.DBus.Introspectable.Introspect
    selector Preview 100.0; selector Commit 100.0
    selector Preview 10.0; selector Cancel
    selector Focus; selector Bogus
    # One long-lived client: a run of calls, then 32 in flight at once.
    /usr/bin/python3 - <<'PY'
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
name, path = "org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1"
for i in range(200):
    bus.call_sync(name, path, name, "Increment" if i % 2 == 0 else "Decrement", None, None, 0, 20000, None)
loop, left = GLib.MainLoop(), [32]
def done(connection, result):
    connection.call_finish(result)
    left[0] -= 1
    if left[0] == 0:
        loop.quit()
for i in range(32):
    bus.call(name, path, name, "SetSize", GLib.Variant("(i)", (40 if i % 2 else 60,)), None, 0, 20000, None, done)
loop.run()
PY
    # 32 clients at once.
    clients=""
    for _ in $(seq 32); do selector Increment & clients="$clients $!"; done
    # shellcheck disable=SC2086 # one PID a word
    wait $clients
    kill -HUP "$server"
    sleep 0.5
    selector Decrement
    sleep 0.5
    kill -TERM "$server"
    wait "$server" || true
}

# The functions of snapsized a callgrind file saw run (scripts/callgrind-functions.awk).
functions() { awk -v program='/snapsized$' -f "$(dirname "$0")/callgrind-functions.awk" "$1"; }

# Pass 1: no slider.
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/plain.out" "$bin" --no-accessibility \
    --state-file "$work/state" >"$work/plain.log" 2>&1 &
server=$!
pids="$server $pids"
workload
functions "$work/plain.out" >"$work/order"
[ -s "$work/order" ] || { echo "callgrind saw no function of $bin" >&2; cat "$work/plain.log" >&2; exit 1; }

# Pass 2: the slider, on an accessibility bus with its registry and a listener for its events.
listener="$release/snapsize-a11y-listener"; . "$(dirname "$0")/accessibility-stack.sh"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/a11y.out" "$bin" \
    --state-file "$work/state" >"$work/a11y-daemon.log" 2>&1 &
server=$!
pids="$server $pids"
workload
functions "$work/a11y.out" | awk 'NR == FNR { seen[$0] = 1; next } !($0 in seen)' "$work/order" - >"$work/more"
[ -s "$work/more" ] || { echo "the pass with the slider ran nothing new: was it on the accessibility bus?" >&2
                         cat "$work/a11y-daemon.log" >&2; exit 1; }

cat "$work/order" "$work/more" >scripts/snapsized.order
echo "scripts/snapsized.order: $(wc -l <"$work/order") functions without the slider, $(wc -l <"$work/more") more with it"
