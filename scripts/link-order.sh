#!/bin/sh
# Regenerates scripts/snapsized.order: the functions snapsized runs (start-up, every method, the
# accessible slider's absence, an orderly stop), as callgrind saw them, one symbol a line. The
# linker (lld, Package.swift) places them together at the start of the program's code, so the few
# hundred KiB the daemon runs sit in a few pages instead of being spread over 4 MiB of the statically
# linked Swift runtime, every page of which the kernel then maps on first touch (fault-around): a smaller
# peak RSS (make bench). A stale file only costs memory, never correctness: symbols it
# names that no longer exist are ignored. Run after large changes: scripts/link-order.sh
set -eu
bin=${RELEASE:-.build/release}/snapsized
name=snapsize-order; . "$(dirname "$0")/private-bus.sh"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/out" "$bin" --state-file "$work/state" \
    >"$work/log" 2>&1 &
server=$!
pids="$server $pids"
call() { gdbus call --session -d org.snapsize.SizeSelector1 -o /org/snapsize/SizeSelector1 -m "$@" >/dev/null 2>&1 || true; }
for _ in $(seq 100); do
    gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner \
        org.snapsize.SizeSelector1 2>/dev/null | grep -q true && break
    sleep 0.2
done
for _ in $(seq 10); do
    call org.snapsize.SizeSelector1.Increment; call org.snapsize.SizeSelector1.Decrement
    call org.snapsize.SizeSelector1.SetSize 40; call org.snapsize.SizeSelector1.StepBy 2
done
call org.freedesktop.DBus.Properties.GetAll org.snapsize.SizeSelector1
call org.freedesktop.DBus.Properties.Get org.snapsize.SizeSelector1 ValueText
call org.freedesktop.DBus.Introspectable.Introspect
call org.snapsize.SizeSelector1.Preview 100.0; call org.snapsize.SizeSelector1.Commit 100.0
call org.snapsize.SizeSelector1.Preview 10.0; call org.snapsize.SizeSelector1.Cancel
call org.snapsize.SizeSelector1.Focus; call org.snapsize.SizeSelector1.Bogus
kill -TERM "$server"
wait "$server" || true
# Function names (first appearance) of records whose object is snapsized itself.
awk '
    /^ob=\(/ { id = $1; sub(/^ob=/, "", id); if (NF > 1) { name = $0; sub(/^ob=\([0-9]+\) /, "", name); obs[id] = name }
               current = obs[id]; next }
    /^cob=\(/ { id = $1; sub(/^cob=/, "", id); if (NF > 1) { name = $0; sub(/^cob=\([0-9]+\) /, "", name); obs[id] = name }; next }
    /^c?fn=\(/ { kind = substr($0, 1, 1); id = $1; sub(/^c?fn=/, "", id)
                 if (NF > 1) { name = $0; sub(/^c?fn=\([0-9]+\) /, "", name); fns[id] = name }
                 # (callgrind names a recursive call NAME'\''2: the same function; "(below main)" is none)
                 symbol = fns[id]; sub(/'\''[0-9]+$/, "", symbol)
                 if (kind == "f" && current ~ /\/snapsized$/ && symbol !~ /^0x|^\(/ && !(symbol in seen)) { seen[symbol] = 1; print symbol } }
' "$work/out" >"$work/order"
[ -s "$work/order" ] || { echo "callgrind saw no function of $bin" >&2; cat "$work/log" >&2; exit 1; }
cp "$work/order" scripts/snapsized.order
echo "scripts/snapsized.order: $(wc -l <scripts/snapsized.order) functions"
