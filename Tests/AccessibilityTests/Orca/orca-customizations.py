# Loaded by Orca at start-up (Orca 43 and 48).
# 1. The debug log line-buffered, so the test can read it live.
# 2. Every change of Orca's locus of focus written to the capture file as a LOCUS line
#    ("push button | Apply"), because Orca 48's debug log no longer names the locus.
# 3. Every entry saved to Orca's notification history as a HISTORY line (the text it keeps).
import os
import time

import orca.debug

try:
    if orca.debug.debugFile:
        orca.debug.debugFile.reconfigure(line_buffering=True)
except Exception:
    pass

_OUT = os.environ.get("ORCA_SPEECH_CAPTURE", "orca-speech.txt")


def _write(kind, text):
    with open(_OUT, "a", encoding="utf-8") as f:
        f.write("%.3f\t%s\t%s\n" % (time.time(), kind, text.replace("\n", " ")))
        f.flush()


def _describe(obj):
    if obj is None:
        return "None"
    try:
        return "%s | %s" % (obj.get_role_name(), obj.get_name())
    except Exception as error:
        return "unreadable (%s)" % error


def _wrap(owner, name, current):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        _write("LOCUS", _describe(current()))
        return result
    setattr(owner, name, wrapper)


def _wrap_history(owner, name):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        _write("HISTORY", repr(args[-1]))
        return original(*args, **kwargs)
    setattr(owner, name, wrapper)


try:  # Orca 45 and later
    from orca import focus_manager
    _wrap(focus_manager.FocusManager, "set_locus_of_focus",
          lambda: focus_manager.get_manager().get_locus_of_focus())
    from orca import notification_presenter
    _wrap_history(notification_presenter.NotificationPresenter, "save_notification")
except ImportError:  # Orca 43
    from orca import orca as _orca, orca_state, notification_messages
    _wrap(_orca, "setLocusOfFocus", lambda: orca_state.locusOfFocus)
    _wrap_history(notification_messages, "saveMessage")
