"""Writes VALUE into snapsize-panel's track through its AT-SPI Value (GTK 4.10+), as a screen reader
or dogtail would, and prints what the Value said before the write (minimum, maximum, current)."""
import sys

import pyatspi
from atspi_common import emit, fail, find_app

app = find_app("snapsize-panel")
if app is None:
    fail("no application named snapsize-panel in the desktop")


def find_slider(obj):
    if obj.getRole() == pyatspi.ROLE_SLIDER:
        return obj
    for i in range(obj.childCount):
        child = obj.getChildAtIndex(i)
        found = find_slider(child) if child is not None else None
        if found is not None:
            return found
    return None


track = find_slider(app)
if track is None:
    fail("the panel has no slider")
value = track.queryValue()
before = {"minimum": value.minimumValue, "maximum": value.maximumValue, "current": value.currentValue}
value.currentValue = float(sys.argv[1])
emit({"before": before})
