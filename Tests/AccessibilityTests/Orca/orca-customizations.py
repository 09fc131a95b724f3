# Loaded by Orca at start-up (Orca 43 and 48).
# 1. The debug log line-buffered, so the test can read it live.
# 2. Every change of Orca's locus of focus written to the capture file as a LOCUS line
#    ("push button | Apply"), because Orca 48's debug log no longer names the locus.
# 3. Every entry saved to Orca's notification history as a HISTORY line (the text it keeps).
# 4. Every braille line Orca shows as a BRAILLE line (the whole line) and a VISIBLE line (the part on
#    the display's cells), taken from the two lines braille.refresh() writes to the debug log,
#    "BRAILLE LINE:  '...'" and "     VISIBLE:  '...', cursor=N": written whether or not a braille
#    display is connected, and what Orca writes to one (checked against a fake BrlAPI connection).
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


def _wrap_braille(owner, name):
    original = getattr(owner, name)

    def wrapper(level, text="", *args, **kwargs):
        if isinstance(text, str):
            if text.startswith("BRAILLE LINE:  '"):
                _write("BRAILLE", text[len("BRAILLE LINE:  '"):-1])
            elif text.startswith("     VISIBLE:  '"):
                _write("VISIBLE", text[len("     VISIBLE:  '"):text.rfind("'")])
        return original(level, text, *args, **kwargs)
    setattr(owner, name, wrapper)


# braille.py looks the function up in the module at each call, so wrapping the module's name is enough.
_wrap_braille(orca.debug, "print_message" if hasattr(orca.debug, "print_message") else "println")

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
