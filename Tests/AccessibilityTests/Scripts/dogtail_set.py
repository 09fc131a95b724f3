"""dogtail finds the slider by role and name and sets its value (dogtail's Node.value setter)."""
import sys
from dogtail.config import config
config.searchCutoffCount = 40
config.searchBackoffDuration = 0.25
config.logDebugToFile = False
from dogtail.tree import root
from atspi_common import emit

app = root.application("snapsize")
slider = app.child(roleName="slider", name="Circle size")
before = slider.value
slider.value = float(sys.argv[1])
emit({"found": slider.name, "role": slider.roleName, "before": before, "after": slider.value,
      "text": slider.queryValue().currentValue})
