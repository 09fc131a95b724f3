#!/usr/bin/python3
"""The control for the crowd fault (issue 33): the crowd of CrowdFaultTests against a service that
does nothing but answer (responder.c), on a private dbus-daemon with Debian's session.conf.

Usage: crowd-control.py CLIENTS SECONDS [BROKER_BIN_DIR]

CLIENTS silent clients (pipeline.py "subscribe": every signal asked for, Increment/Decrement pipelined,
nothing read) while a well-behaved client calls Increment with dbus-send every 0.5 s (3 s timeout).
Prints each well-behaved call's time in ms and dbus-send's status. With BROKER_BIN_DIR (a folder with
dbus-broker and dbus-broker-launch, say extracted from Debian's .deb with dpkg-deb -x), the bus is
dbus-broker instead, started in a private mount namespace (root) that gives it the journal socket and
/usr/bin/dbus-broker it expects. Stops everything it started.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
clients, seconds = int(sys.argv[1]), float(sys.argv[2])
broker = sys.argv[3] if len(sys.argv) > 3 else None
folder = tempfile.mkdtemp(prefix="crowd-control.")
path = folder + "/bus"
address = "unix:path=" + path
name = "org.snapsize.SizeSelector1"
started = []


def start(argv, **options):
    child = subprocess.Popen(argv, **options)
    started.append(child)
    return child


try:
    responder = folder + "/responder"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "dbus-1"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-o", responder, here + "/responder.c"] + flags, check=True)
    if broker:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(128)
        sink = ("import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); "
                "s.bind('/run/systemd/journal/socket')\nwhile True: s.recv(65536)")
        script = ("mount -t tmpfs none /run && mkdir -p /run/systemd/journal && "
                  f"mount -t overlay overlay -o lowerdir={broker}:/usr/bin /usr/bin && "
                  f"(/usr/bin/python3 -c \"{sink}\" &) && sleep 0.5 && "
                  "LISTEN_PID=$$ LISTEN_FDS=1 exec dbus-broker-launch --scope user "
                  "--config-file /usr/share/dbus-1/session.conf")
        start(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
              pass_fds=(listener.fileno(),), preexec_fn=lambda: os.dup2(listener.fileno(), 3),
              env=dict(os.environ, XDG_RUNTIME_DIR=folder), stderr=subprocess.DEVNULL)
    else:
        bus = start(["dbus-daemon", "--config-file=/usr/share/dbus-1/session.conf", "--address=" + address,
                     "--nofork", "--print-address"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        bus.stdout.readline()
    deadline = time.time() + 10
    while time.time() < deadline:
        service = start([responder, address, name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if service.stdout.readline().strip() == "ready":
            break
        time.sleep(0.2)
    else:
        raise SystemExit("the responder never owned " + name)
    for _ in range(clients):
        start([here + "/pipeline.py", address, name, "/org/snapsize/SizeSelector1", name, "Increment,Decrement",
               "10000000", "subscribe"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = []
    begin = time.time()
    while time.time() - begin < seconds:
        time.sleep(0.5)
        at = time.time()
        status = subprocess.run(["dbus-send", "--bus=" + address, "--print-reply", "--reply-timeout=3000",
                                 "--dest=" + name, "/org/snapsize/SizeSelector1", name + ".Increment"],
                                capture_output=True).returncode
        results.append(f"{round((time.time() - at) * 1000)} ms{'' if status == 0 else ' (failed)'}")
    print(f"{'dbus-broker' if broker else 'dbus-daemon'}, {clients} silent clients, the responder's "
          f"well-behaved calls: {', '.join(results)}")
finally:
    for child in reversed(started):
        child.kill()
        child.wait()
