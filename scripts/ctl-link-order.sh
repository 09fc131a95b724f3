#!/bin/sh
# Regenerates scripts/snapsizectl.order: what one key press (`snapsizectl inc`, then `dec`) runs and
# touches, one symbol a line: first its functions as callgrind saw them, then the data it read or
# wrote (valgrind's lackey), in that order. The linker (lld, Package.swift) places them together, so
# the kernel maps the program's pages for a key press in fewer faults: code 64 KiB at a time around
# each page touched, and the zero-filled and written data a page at a time (docs/PERFORMANCE.md).
# As with scripts/snapsized.order, a stale file only costs time, never correctness. Run it after
# changes to what `inc` runs (the key-press rows of `make bench`), and commit the file.
#   scripts/ctl-link-order.sh        (RELEASE=.build/release by default)
set -eu
release=${RELEASE:-.build/release}
bin=$release/snapsizectl
name=snapsizectl-order; . "$(dirname "$0")/private-bus.sh"

"$release/snapsized" --no-accessibility --no-state >"$work/daemon.log" 2>&1 &
pids="$! $pids"
for _ in $(seq 100); do
    gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner \
        org.snapsize.SizeSelector1 2>/dev/null | grep -q true && break
    sleep 0.1
done

: >"$work/functions"
for step in inc dec; do
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$step.out" "$bin" "$step" >/dev/null 2>&1
    awk -v program='/snapsizectl$' -f "$(dirname "$0")/callgrind-functions.awk" "$work/$step.out" >>"$work/functions"
done
valgrind --tool=lackey --trace-mem=yes --log-file="$work/lackey" "$bin" inc >/dev/null 2>&1
[ -s "$work/functions" ] || { echo "callgrind saw no function of $bin" >&2; cat "$work/daemon.log" >&2; exit 1; }

# The data symbols lackey saw touched, in the order first touched. Valgrind loads a position-
# independent program at 0x108000; the entry point's address there among the instructions run
# proves it.
/usr/bin/python3 - "$bin" "$work/lackey" >"$work/data" <<'PY'
import bisect, subprocess, sys
program, trace = sys.argv[1], sys.argv[2]
base = 0x108000
entry = int(next(l for l in subprocess.check_output(["readelf", "-h", program], text=True).splitlines()
                 if "Entry point" in l).split()[-1], 16)
symbols = []
for line in subprocess.check_output(["nm", "-S", "-n", program], text=True).splitlines():
    fields = line.split()
    if len(fields) == 4 and fields[2] in "bBdDrR":
        symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
starts = [start for start, _, _ in symbols]
seen, entered = {}, False
with open(trace) as lines:
    for line in lines:
        kind = line[:2]
        if kind == "I ":
            entered = entered or int(line.split()[1].split(",")[0], 16) == base + entry
        elif kind in (" L", " S", " M"):
            address = int(line.split()[1].split(",")[0], 16) - base
            index = bisect.bisect_right(starts, address) - 1
            if index >= 0 and address < symbols[index][0] + max(symbols[index][1], 1):
                seen.setdefault(symbols[index][2], None)
if not entered:
    sys.exit("lackey never ran the entry point at 0x108000 + %#x: where did valgrind load it?" % entry)
print("\n".join(seen))
PY

awk '!seen[$0]++' "$work/functions" "$work/data" >scripts/snapsizectl.order
echo "scripts/snapsizectl.order: $(awk '!seen[$0]++' "$work/functions" | wc -l) functions, $(wc -l <"$work/data") data symbols"
