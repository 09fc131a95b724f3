"""Prints what a client reads of snapsize-panel's window: every accessible with its role, name,
description and extents in window coordinates (what magnifiers and tests use)."""
import pyatspi
from atspi_common import emit, fail, find_app

app = find_app("snapsize-panel")
if app is None:
    fail("no application named snapsize-panel in the desktop")


def extents(obj):
    try:
        return list(obj.queryComponent().getExtents(pyatspi.WINDOW_COORDS))
    except Exception as error:
        return {"error": str(error)}


def walk(obj, found):
    found.append({"roleName": obj.getRoleName(), "name": obj.name, "description": obj.description,
                  "extents": extents(obj), "interfaces": sorted(pyatspi.listInterfaces(obj))})
    for i in range(obj.childCount):
        child = obj.getChildAtIndex(i)
        if child is not None:
            walk(child, found)


objects = []
for i in range(app.childCount):
    walk(app.getChildAtIndex(i), objects)
emit({"objects": objects})
