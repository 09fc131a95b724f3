"""Runs operations on the slider through pyatspi and prints what each returned.

Arguments: `do:N` (Action.doAction(N)), `set:V` (Value.currentValue = V, i.e. Properties.Set),
`focus` (Component.grabFocus()), `once:V` (sets V and exits as soon as the write is answered,
as a short-lived writer does; must be the only operation). Prints {"pid", "steps": [{"op", "result",
"value", "text"}...]}.
"""
import os
import sys
from gi.repository import Atspi
from atspi_common import emit, find_slider

app, slider = find_slider()
value = slider.queryValue()
steps = []
for op in sys.argv[1:]:
    kind, _, argument = op.partition(":")
    if kind == "once":
        value.currentValue = float(argument)
        emit({"pid": os.getpid(), "steps": []})
        os._exit(0)
    if kind == "do":
        result = bool(slider.queryAction().doAction(int(argument)))
    elif kind == "set":
        value.currentValue = float(argument)
        result = None  # libatspi reports success whatever happened: read the value back instead
    elif kind == "focus":
        result = bool(slider.queryComponent().grabFocus())
    else:
        raise SystemExit("unknown operation " + op)
    steps.append({"op": op, "result": result, "value": value.currentValue,
                  "text": Atspi.Value.get_text(slider)})
emit({"pid": os.getpid(), "steps": steps})
