#!/bin/bash
# Run as root inside a new pid namespace (unshare --pid --fork --mount-proc), so that a pid can be
# handed out again at will (/proc/sys/kernel/ns_last_pid): a private session bus and snapsized; a
# client connects, hands its connection to a child and exits; `sleep 600` is given its pid; the
# child then changes the size. Before that, a plain client (`snapsizectl set 80`) changes it once.
# Prints "plain " and that change's `history --json` entry, "reused PID of PID", then `snapsizectl
# status --json` and the newest `history --json` entry as the daemon recorded the child's change.
#
# With ROOT (a Debian 13 chroot, scripts/orca48-chroot.sh), the bus is ROOT's dbus-daemon (1.16),
# which gives a caller's process as a pidfd (ProcessFD); DIRECTORY must then be in ROOT/tmp. PROC
# says what the bus sees as /proc (mounted in this namespace's own mount table, gone with it):
# "proc", this namespace's procfs (so it offers ProcessID as well), or "none", an empty folder (so it
# can tell a caller's process only as a pidfd). Prints "credentials " and what the bus says of
# snapsized's connection (busctl).
#
# Usage: pid-reuse.sh SNAPSIZED SNAPSIZECTL DIRECTORY [ROOT proc|none]
set -eu
snapsized=$1 snapsizectl=$2 dir=$3 root=${4:-} proc=${5:-proc}
# A session of its own: nothing inherited from the test runner (its sockets above all) beyond stdio.
for fd in $(ls /proc/$$/fd); do
    if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
export HOME=$dir/home XDG_RUNTIME_DIR=$dir/run DBUS_SESSION_BUS_ADDRESS=unix:path=$dir/bus
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
if [ -n "$root" ]; then
    case $proc in
        proc) mount -t proc proc "$root/proc" ;;
        none) mount -t tmpfs -o size=4k,mode=555 none "$root/proc" ;;
    esac
    chroot "$root" dbus-daemon --session --nofork --address="unix:path=${dir#"$root"}/bus" \
        </dev/null >/dev/null 2>&1 &
else
    dbus-daemon --session --nofork --address="$DBUS_SESSION_BUS_ADDRESS" </dev/null >/dev/null 2>&1 &
fi
for _ in $(seq 100); do [ -S "$dir/bus" ] && break; sleep 0.05; done
"$snapsized" --no-accessibility --no-state </dev/null >/dev/null 2>"$dir/daemon.err" &
for _ in $(seq 100); do "$snapsizectl" get >/dev/null 2>&1 && break; sleep 0.1; done
if [ -n "$root" ]; then
    echo "credentials $(busctl --address="$DBUS_SESSION_BUS_ADDRESS" call org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus GetConnectionCredentials s org.snapsize.SizeSelector1)"
fi
"$snapsizectl" set 80 >/dev/null
echo "plain $("$snapsizectl" history --json --limit 1)"

cat >"$dir/client.py" <<'PY'
import os, socket, struct, sys, time

def pad(length, align):
    return b"\0" * ((-length) % align)

def call(serial, destination, path, interface, member, int32=None):
    fields = b""
    for code, sig, value in ((1, "o", path), (2, "s", interface), (3, "s", member), (6, "s", destination)):
        fields += pad(16 + len(fields), 8) + bytes([code, 1]) + sig.encode() + b"\0"
        fields += pad(16 + len(fields), 4) + struct.pack("<I", len(value)) + value.encode() + b"\0"
    body = b""
    if int32 is not None:
        fields += pad(16 + len(fields), 8) + bytes([8, 1]) + b"g\0" + bytes([1]) + b"i\0"
        body = struct.pack("<i", int32)
    header = struct.pack("<cBBBII", b"l", 1, 0, 1, len(body), serial) + struct.pack("<I", len(fields)) + fields
    return header + pad(len(header), 8) + body

bus, go = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.connect(bus)
s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
answer = b""
while not answer.endswith(b"\r\n"):
    answer += s.recv(1)
s.sendall(b"BEGIN\r\n")
s.sendall(call(1, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello"))
s.recv(4096)
if os.fork() == 0:
    while not os.path.exists(go):
        time.sleep(0.01)
    s.sendall(call(2, "org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1", "org.snapsize.SizeSelector1",
                   "SetSize", 20))
    s.settimeout(10)
    s.recv(4096)
    print("child done", flush=True)
    os._exit(0)
print(os.getpid(), flush=True)
os._exit(0)
PY
/usr/bin/python3 "$dir/client.py" "$dir/bus" "$dir/go" >"$dir/client.out" &
wait $!
parent=$(head -1 "$dir/client.out")
echo $((parent - 1)) >/proc/sys/kernel/ns_last_pid
sleep 600 </dev/null >/dev/null 2>&1 &
echo "reused $! of $parent"
touch "$dir/go"
for _ in $(seq 100); do grep -q "child done" "$dir/client.out" && break; sleep 0.1; done
"$snapsizectl" status --json
"$snapsizectl" history --json --limit 1
