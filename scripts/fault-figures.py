#!/usr/bin/python3
"""How snapsized fares against a hostile accessibility side and surroundings, for any snapsized binary.

    /usr/bin/python3 scripts/fault-figures.py .build/release/snapsized [item ...]

Items: 1 hung-start, 2 sigterm, 3 queue, 4 big-message, 5 atspi-writes, 6 signals, 7 bad-files.
Each runs on its own private session bus and a plain dbus-daemon as the accessibility bus (stopped
with SIGSTOP where the item says so), all started here and stopped by PID. Prints one line per
figure. Measurements, not tests: the tests are in Tests/*/*FaultTests.swift.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from gi.repository import Gio, GLib

NAME, PATH, IFACE = "org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1", "org.snapsize.SizeSelector1"
SLIDER = "/org/a11y/atspi/accessible/slider"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


class Bus:
    """A dbus-daemon of our own (session config, socket in a private folder)."""

    def __init__(self, folder, name):
        os.makedirs(f"{folder}/{name}", exist_ok=True)
        self.process = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1",
                                         f"--address=unix:dir={folder}/{name}"], stdout=subprocess.PIPE)
        self.address = self.process.stdout.readline().decode().strip()
        self.connection = None

    def connect(self):
        if self.connection is None:
            flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
            self.connection = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)
        return self.connection

    def call(self, destination, path, interface, member, arguments=None, timeout_ms=2000, reply_type=None):
        return self.connect().call_sync(destination, path, interface, member, arguments, reply_type,
                                        Gio.DBusCallFlags.NONE, timeout_ms, None)

    def has_owner(self, name):
        return self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                         GLib.Variant("(s)", (name,))).unpack()[0]

    def names(self):
        return self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames").unpack()[0]

    def stop(self):
        if self.connection is not None and not self.connection.is_closed():
            self.connection.close_sync(None)
        self.process.send_signal(signal.SIGCONT)
        self.process.terminate()
        self.process.wait()


class Desktop:
    """A session bus, an accessibility bus and snapsized on them."""

    def __init__(self, binary, arguments=(), stopped_a11y=False, stderr=None, state=None):
        self.folder = tempfile.mkdtemp(prefix="ssf")
        self.session = Bus(self.folder, "session")
        self.a11y = Bus(self.folder, "a11y")
        if stopped_a11y:
            self.a11y.process.send_signal(signal.SIGSTOP)
        home = f"{self.folder}/home"
        os.makedirs(f"{home}/.local/state/snapsize", exist_ok=True)
        self.state = f"{home}/.local/state/snapsize/state"
        if state is not None:
            with open(self.state, "w") as file:
                file.write(state)
        self.environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.session.address,
                                AT_SPI_BUS_ADDRESS=self.a11y.address, HOME=home,
                                XDG_STATE_HOME=f"{home}/.local/state", XDG_CONFIG_HOME=f"{home}/.config")
        self.environment.pop("DISPLAY", None)
        self.stderr_path = f"{self.folder}/stderr"
        self.daemon = subprocess.Popen([binary, *arguments], env=self.environment,
                                       stderr=stderr if stderr is not None else open(self.stderr_path, "w"))
        deadline = time.monotonic() + 10
        while not self.session.has_owner(NAME):
            if time.monotonic() > deadline or self.daemon.poll() is not None:
                raise RuntimeError(f"snapsized did not take its name: {self.log()}")
            time.sleep(0.01)

    def log(self):
        try:
            return open(self.stderr_path).read()
        except OSError:
            return ""

    def call(self, member, arguments=None, timeout_ms=2000):
        return self.session.call(NAME, PATH, IFACE, member, arguments, timeout_ms)

    def get(self, name, timeout_ms=2000):
        return self.session.call(NAME, PATH, "org.freedesktop.DBus.Properties", "Get",
                                 GLib.Variant("(ss)", (IFACE, name)), timeout_ms).unpack()[0]

    def slider_owner(self, timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            others = [n for n in self.a11y.names() if n.startswith(":") and n != self.a11y.connect().get_unique_name()]
            if others:
                return others[0]
            time.sleep(0.02)
        return None

    def terminate(self, timeout=10):
        """SIGTERM; milliseconds until it exited (None if it did not within `timeout` s: then SIGKILL)."""
        start = time.monotonic()
        self.daemon.send_signal(signal.SIGTERM)
        try:
            self.daemon.wait(timeout)
            return (time.monotonic() - start) * 1000
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            self.daemon.wait()
            return None

    def close(self):
        if self.daemon.poll() is None:
            self.daemon.kill()
            self.daemon.wait()
        self.session.stop()
        self.a11y.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def describe(error):
    name = Gio.dbus_error_get_remote_error(error)
    Gio.dbus_error_strip_remote_error(error)
    return f"{name}: {error.message}"


def changes(desktop, count):
    for number in range(count):
        desktop.call("Increment" if number % 2 == 0 else "Decrement")


def item1(binary):
    desktop = Desktop(binary, stopped_a11y=True)
    try:
        answered, asked = 0, 0
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            asked += 1
            try:
                desktop.get("SelectedSize", timeout_ms=500)
                answered += 1
            except GLib.Error:
                pass
        print(f"1 hung accessibility bus at start: {answered} of {asked} session calls answered in 5 s")
        desktop.a11y.process.send_signal(signal.SIGCONT)
        joined = desktop.slider_owner(timeout=10)
        print(f"1 after SIGCONT: slider on the accessibility bus: {joined is not None}")
    finally:
        desktop.close()


def item2(binary, count=2000):
    desktop = Desktop(binary)
    try:
        desktop.slider_owner()
        desktop.a11y.process.send_signal(signal.SIGSTOP)
        changes(desktop, count - 1)
        desktop.call("Increment")
        expected = desktop.get("SelectedSize")
        elapsed = desktop.terminate()
        # What a restart restores (the state file's format is the daemon's business).
        again = subprocess.Popen([binary, "--no-accessibility"], env=desktop.environment, stderr=subprocess.DEVNULL)
        while not desktop.session.has_owner(NAME):
            time.sleep(0.01)
        saved = f"size={desktop.get('SelectedSize')} after a restart"
        again.terminate()
        again.wait()
        shown = "did not exit within 10 s (SIGKILLed)" if elapsed is None else f"exited in {elapsed:.0f} ms, status {desktop.daemon.returncode}"
        print(f"2 SIGTERM after {count} changes with the accessibility bus stopped: {shown}; {saved} (expected size={expected})")
    finally:
        desktop.close()


def item3(binary, count=40000):
    desktop = Desktop(binary)
    try:
        desktop.slider_owner()
        changes(desktop, 200)
        time.sleep(0.3)
        idle = rss_kib(desktop.daemon.pid)
        desktop.a11y.process.send_signal(signal.SIGSTOP)
        start = time.monotonic()
        changes(desktop, count)
        after = rss_kib(desktop.daemon.pid)
        took = time.monotonic() - start
        print(f"3 {count} changes with the accessibility bus stopped: RSS {idle} -> {after} KiB ({after / idle:.2f}x idle; {took:.1f} s)")
        desktop.call("Increment")
        desktop.a11y.process.send_signal(signal.SIGCONT)
        owner = desktop.slider_owner()
        value = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                value = desktop.a11y.call(owner, SLIDER, "org.freedesktop.DBus.Properties", "Get",
                                          GLib.Variant("(ss)", ("org.a11y.atspi.Value", "CurrentValue")), 2000).unpack()[0]
                break
            except GLib.Error:
                time.sleep(0.1)
        print(f"3 after SIGCONT: CurrentValue {value}, SelectedIndex {desktop.get('SelectedIndex')}, RSS {rss_kib(desktop.daemon.pid)} KiB")
    finally:
        desktop.close()


def item4(binary):
    desktop = Desktop(binary, arguments=["--no-accessibility"])
    try:
        changes(desktop, 200)
        time.sleep(0.2)
        idle = rss_kib(desktop.daemon.pid)
        big = GLib.Variant("(s)", ("x" * (10 * 1024 * 1024),))
        figures = []
        for _ in range(3):  # glibc raises its mmap threshold when the first big block is freed: the later ones stay
            try:
                desktop.call("SetSize", big, timeout_ms=10000)
                answer = "success?!"
            except GLib.Error as error:
                answer = Gio.dbus_error_get_remote_error(error)
            changes(desktop, 20)
            time.sleep(0.5)
            figures.append(rss_kib(desktop.daemon.pid))
        worst = max(figures)
        print(f"4 three 10 MB messages, each answered {answer}: RSS idle {idle} KiB, after each {figures} KiB "
              f"(worst {worst / idle:.2f}x idle)")
    finally:
        desktop.close()


def item5(binary):
    desktop = Desktop(binary)
    try:
        owner = desktop.slider_owner()

        def write(value):
            try:
                desktop.a11y.call(owner, SLIDER, "org.freedesktop.DBus.Properties", "Set",
                                  GLib.Variant("(ssv)", ("org.a11y.atspi.Value", "CurrentValue", GLib.Variant("d", value))))
                return "success"
            except GLib.Error as error:
                return describe(error)

        for value in [float("nan"), float("inf"), float("-inf")]:
            print(f"5 CurrentValue = {value}: {write(value)}")
        # Unsavable: the state file's name taken by a folder, so the rename over it fails (even as root).
        if os.path.exists(desktop.state):
            os.unlink(desktop.state)
        os.mkdir(desktop.state)
        print(f"5 CurrentValue = 0 while the state cannot be saved: {write(0.0)}")
        try:
            desktop.call("SetIndex", GLib.Variant("(u)", (0,)))
            dbus_side = "success"
        except GLib.Error as error:
            dbus_side = describe(error)
        print(f"5 the D-Bus side, SetIndex 0 while the state cannot be saved: {dbus_side}")
        for _ in range(200):
            write(float("nan"))
        time.sleep(0.2)
        refused = [line for line in desktop.log().splitlines() if "refused an accessibility value write" in line]
        print(f"5 204 refused writes in all: {len(refused)} log lines")
    finally:
        desktop.close()


def item6(binary):
    desktop = Desktop(binary)
    try:
        os.makedirs(f"{desktop.folder}/home/.config/snapsize", exist_ok=True)
        with open(f"{desktop.folder}/home/.config/snapsize/config", "w") as config:
            config.write("label = Brush size\npreview-timeout = 5\n")
        desktop.daemon.send_signal(signal.SIGHUP)
        time.sleep(1)
        alive = desktop.daemon.poll() is None
        label = desktop.get("Label") if alive else None
        reload = [line for line in desktop.log().splitlines() if "SIGHUP" in line]
        print(f"6 SIGHUP: {'alive' if alive else f'dead, status {desktop.daemon.returncode}'}; Label {label!r}; log: {reload}")
    finally:
        desktop.close()
    read_end, write_end = os.pipe()
    desktop = Desktop(binary, stderr=write_end)
    os.close(write_end)
    os.close(read_end)  # the reader is gone: the next line on stderr hits EPIPE
    try:
        owner = desktop.slider_owner()
        try:
            desktop.a11y.call(owner, SLIDER, "org.freedesktop.DBus.Properties", "Set",
                              GLib.Variant("(ssv)", ("org.a11y.atspi.Value", "CurrentValue", GLib.Variant("d", float("nan")))))
        except GLib.Error:
            pass
        os.kill(desktop.a11y.process.pid, signal.SIGTERM)  # "the accessibility bus went away" is logged too
        time.sleep(1)
        alive = desktop.daemon.poll() is None
        code = desktop.daemon.returncode
        print(f"6 a log line with stderr a closed pipe: {'alive' if alive else f'dead, status {code}'}")
    finally:
        desktop.close()


def item7(binary):
    folder = tempfile.mkdtemp(prefix="ssf")
    session = Bus(folder, "session")
    state_folder = f"{folder}/state"
    os.makedirs(state_folder)
    environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=session.address, HOME=folder,
                       XDG_CONFIG_HOME=f"{folder}/config")
    seconds = []
    try:
        for content in ["first bad file\n", "second bad file\n"]:
            with open(f"{state_folder}/state", "w") as file:
                file.write(content)
            seconds.append(int(time.time()))
            daemon = subprocess.Popen([binary, "--no-accessibility", "--state-file", f"{state_folder}/state"],
                                      env=environment, stderr=subprocess.DEVNULL)
            while not session.has_owner(NAME):
                time.sleep(0.005)
            daemon.terminate()
            daemon.wait()
        kept = sorted(name for name in os.listdir(state_folder) if name.startswith("state.bad-"))
        contents = [open(f"{state_folder}/{name}").read().strip() for name in kept]
        same = "within one second" if seconds[0] == int(time.time()) else "(not within one second: rerun)"
        print(f"7 two corrupt state files {same}: {len(kept)} kept: {contents}")
    finally:
        session.stop()
        shutil.rmtree(folder, ignore_errors=True)


ITEMS = {"1": item1, "2": item2, "3": item3, "4": item4, "5": item5, "6": item6, "7": item7}

if __name__ == "__main__":
    binary = os.path.abspath(sys.argv[1])
    for item in sys.argv[2:] or list(ITEMS):
        ITEMS[item](binary)
