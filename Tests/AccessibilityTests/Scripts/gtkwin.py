"""A real GTK 3 window in its own process, holding focus while the daemon's slider changes.

It shows a text entry and an "Apply" button and takes X input focus itself (no window manager
runs under Xvfb: present() sets the input focus directly). Commands on stdin, one per line:
"focus entry" / "focus button" move GTK's focus (each move is an object:state-changed:focused
event on the accessibility bus); "present" takes X input focus again. It prints one JSON line per
completed command ({"focused": "button"}), the first one once the window is active.
"""
import json
import os
import sys

import gi
gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk


def emit(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


window = Gtk.Window(title="Editor")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
entry = Gtk.Entry()
button = Gtk.Button(label="Apply")
box.pack_start(entry, False, False, 0)
box.pack_start(button, False, False, 0)
window.add(box)
widgets = {"entry": entry, "button": button}
state = {"ready": False}


def focused(name):
    def handler(widget, event):
        emit({"focused": name, "active": window.is_active()})
        return False
    return handler


entry.connect("focus-in-event", focused("entry"))
button.connect("focus-in-event", focused("button"))


def on_active(window, _param):
    if window.is_active() and not state["ready"]:
        state["ready"] = True
        emit({"ready": True})


window.connect("notify::is-active", on_active)


def on_stdin(fd, condition):
    data = os.read(fd, 4096) if condition & GLib.IO_IN else b""
    if not data:
        Gtk.main_quit()
        return False
    for command in data.decode().split("\n"):
        words = command.split()
        if words[:1] == ["focus"] and len(words) == 2 and words[1] in widgets:
            widgets[words[1]].grab_focus()
        elif words == ["present"]:
            window.present()
    return True


GLib.io_add_watch(0, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, on_stdin)
GLib.timeout_add_seconds(300, Gtk.main_quit)  # never outlive a broken test
window.show_all()
entry.grab_focus()
window.present()
Gtk.main()
