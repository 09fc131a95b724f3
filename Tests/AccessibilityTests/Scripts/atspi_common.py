"""Shared helpers for the accessibility test scripts (run with Debian's /usr/bin/python3).

Every script prints exactly one JSON object on stdout (or JSON lines for listeners), which the
Swift tests parse. The bus comes from the environment the test gives (AT_SPI_BUS_ADDRESS or the
private session bus), never the desktop's.
"""
import json
import sys
import time

import pyatspi


def apps_named(name):
    desktop = pyatspi.Registry.getDesktop(0)
    found = []
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        try:
            if app is not None and app.name == name:
                found.append(app)
        except Exception:
            pass
    return found


def find_app(name="snapsize", timeout=10.0):
    """The one application called `name`, waiting for it to register."""
    deadline = time.time() + timeout
    while True:
        apps = apps_named(name)
        if apps or time.time() > deadline:
            return apps[0] if apps else None
        time.sleep(0.05)


def find_slider(timeout=10.0):
    app = find_app(timeout=timeout)
    if app is None:
        fail("no application named snapsize in the desktop")
    return app, app.getChildAtIndex(0).getChildAtIndex(0)  # root -> frame -> slider


def state_names(obj):
    return sorted(s.value_nick for s in obj.getState().getStates())


def emit(obj):
    print(json.dumps(obj, sort_keys=True))
    sys.stdout.flush()


def fail(message):
    emit({"error": message})
    sys.exit(1)
