# Loaded by Orca at start-up: make the debug log line-buffered so the test can read it live.
import orca.debug
try:
    if orca.debug.debugFile:
        orca.debug.debugFile.reconfigure(line_buffering=True)
except Exception:
    pass
