"""Listens for the slider's events and prints one JSON line per event until stdin closes.

Arguments: the event types to register (default: value changes, focus and announcements).
With LISTEN_BEFORE_SLIDER=1 in the environment it registers without waiting for the slider.

First line: {"ready": true} once the listeners are registered. Each event line carries its type,
source name, detail1 and — for value changes — CurrentValue read back at delivery (libatspi drops
a double any_data), for announcements the text, for a notification shown its label's text.
"""
import os
import sys
import pyatspi
from gi.repository import GLib
from atspi_common import emit, find_slider

if not os.environ.get("LISTEN_BEFORE_SLIDER"):
    find_slider()
TYPES = sys.argv[1:] or ["object:property-change:accessible-value", "object:state-changed:focused", "object:announcement"]


def on_event(event):
    line = {"type": event.type, "source": event.source.name if event.source else None, "detail1": event.detail1,
            "role": event.source.getRoleName() if event.source else None}
    if event.type.startswith("object:property-change:accessible-value"):
        line["value"] = event.source.queryValue().currentValue
    elif event.type.startswith("object:announcement"):
        line["text"] = str(event.any_data)
    elif event.type.startswith("object:state-changed:showing") and event.source and event.source.childCount:
        line["text"] = event.source.getChildAtIndex(0).name  # a notification's label
    emit(line)


def on_stdin(fd, condition):
    if condition & (GLib.IO_HUP | GLib.IO_ERR) or not os.read(fd, 4096):
        pyatspi.Registry.stop()
        return False
    return True


def ready():
    emit({"ready": True})
    return False


pyatspi.Registry.registerEventListener(on_event, *TYPES)
GLib.io_add_watch(0, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, on_stdin)
GLib.idle_add(ready)
GLib.timeout_add_seconds(120, lambda: pyatspi.Registry.stop())  # never outlive a broken test
pyatspi.Registry.start()
