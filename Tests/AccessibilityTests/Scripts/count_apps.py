"""Prints how many applications named snapsize the desktop lists (without waiting for one)."""
from atspi_common import apps_named, emit

emit({"apps": len(apps_named("snapsize"))})
