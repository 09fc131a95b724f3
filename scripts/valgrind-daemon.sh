#!/bin/sh
# `make stress`, memory part: snapsized (release build) under valgrind memcheck on a private bus,
# driven by 1,000 calls from one client; fails on any definite leak or memory error.
set -eu
bin=${RELEASE:-.build/release}
name=snapsize-vg; . "$(dirname "$0")/private-bus.sh"
HOME=$work valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
    --error-exitcode=99 --log-file="$work/valgrind.log" \
    "$bin/snapsized" --no-accessibility --state-file "$work/state" &
daemon=$!
/usr/bin/python3 - <<'PY'
import time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
def call(member, args=None, sig=None):
    return bus.call_sync("org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1", "org.snapsize.SizeSelector1",
                         member, args, None, Gio.DBusCallFlags.NONE, 20000, None)
for _ in range(300):  # valgrind makes start-up slow
    try:
        call("Cancel"); break
    except GLib.Error:
        time.sleep(0.1)
refused = 0
for i in range(1000):
    kind = i % 8
    try:
        if kind == 0: call("Increment")
        elif kind == 1: call("Decrement")
        elif kind == 2: call("SetIndex", GLib.Variant("(u)", (i % 7,)))
        elif kind == 3: call("SetSize", GLib.Variant("(i)", (i % 130,)))
        elif kind == 4: call("Preview", GLib.Variant("(d)", (float(i % 340),)))
        elif kind == 5: call("Commit", GLib.Variant("(d)", (float((i * 7) % 340),)))
        elif kind == 6: call("Preview", GLib.Variant("(d)", (float("nan"),)))
        else: bus.call_sync("org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1",
                            "org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", ("org.snapsize.SizeSelector1",)),
                            None, Gio.DBusCallFlags.NONE, 20000, None)
    except GLib.Error:
        refused += 1
print("valgrind run: 1000 calls sent, %d refused as expected" % refused)
PY
kill -TERM "$daemon"
status=0
wait "$daemon" || status=$?
grep -E "definitely lost|ERROR SUMMARY|indirectly lost|possibly lost" "$work/valgrind.log" | sed 's/^==[0-9]*== /valgrind: /'
if [ "$status" -ne 0 ]; then
    echo "valgrind: snapsized exited $status (99 = memcheck found errors or definite leaks)"; cat "$work/valgrind.log"; exit 1
fi
