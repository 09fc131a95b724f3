# Sourced as `name=NAME; . scripts/private-bus.sh` (dash passes no arguments to `.`) by the
# measuring scripts (make profile, make stress's valgrind run, link-order.sh): a private session bus
# in a fresh folder /tmp/NAME.XXXXXX, never the desktop's. Sets `work` (the folder), XDG_RUNTIME_DIR,
# HOME and DBUS_SESSION_BUS_ADDRESS, unsets the desktop's display and accessibility bus, and starts
# `pids` (what the EXIT trap stops by PID, before removing the folder): add every process you start to it.
work=$(mktemp -d "/tmp/$name.XXXXXX")
mkdir -m 700 "$work/run"
export XDG_RUNTIME_DIR="$work/run" HOME="$work"
unset DISPLAY WAYLAND_DISPLAY AT_SPI_BUS_ADDRESS 2>/dev/null || true
pids=""
trap 'for pid in $pids; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
# A script stopped by a signal (timeout, Ctrl-C) runs no EXIT trap in dash unless the signal is trapped.
trap 'exit 130' INT TERM
dbus-daemon --session --fork --print-address=1 --print-pid=1 --address="unix:dir=$work/run" >"$work/bus"
export DBUS_SESSION_BUS_ADDRESS="$(sed -n 1p "$work/bus")"
pids="$(sed -n 2p "$work/bus")"
