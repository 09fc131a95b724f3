#!/bin/sh
# `make run`: snapsized in the foreground, on the session bus.
# On a machine without a session bus (a fresh headless box) it first starts a private session bus
# and an accessibility bus, prints the address to use from a second terminal, and stops them
# (by PID, nothing else) when snapsized ends or on Ctrl-C.
# With a display (DISPLAY or WAYLAND_DISPLAY), the panel (snapsize-panel) opens beside it.
set -eu
bin=${RELEASE:-.build/release}
display=${DISPLAY:-} wayland=${WAYLAND_DISPLAY:-}

# Starts the panel in the background once snapsized owns its name (so that the bus does not activate
# an installed snapsized for it), on the display the script was given; its PID in $panel.
panel=""
open_panel() {
    [ -n "$display$wayland" ] && [ -x "$bin/snapsize-panel" ] || return 0
    (for _ in $(seq 100); do
         if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.snapsize.SizeSelector1 2>/dev/null | grep -q "boolean true"; then
             [ -z "$display" ] || export DISPLAY="$display"
             [ -z "$wayland" ] || export WAYLAND_DISPLAY="$wayland"
             exec "$bin/snapsize-panel"
         fi
         sleep 0.1
     done) &
    panel=$!
}

if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && dbus-send --session --print-reply --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null 2>&1; then
    echo "snapsize: serving on your session bus ($DBUS_SESSION_BUS_ADDRESS); Ctrl-C stops it."
    open_panel
    exec "$bin/snapsized" "$@"
fi

work=$(mktemp -d /tmp/snapsize-run.XXXXXX)
mkdir -m 700 "$work/run"
export XDG_RUNTIME_DIR="$work/run"
unset DISPLAY WAYLAND_DISPLAY AT_SPI_BUS_ADDRESS 2>/dev/null || true
daemon="" buses=""
# The panel, then the daemon, and only once it has exited the buses: stopped the other way round, the
# daemon would see its bus go away and say so, which reads like a fault.
cleanup() {
    trap - INT TERM EXIT
    if [ -n "$panel" ]; then
        kill "$panel" 2>/dev/null || true
        wait "$panel" 2>/dev/null || true
    fi
    if [ -n "$daemon" ]; then
        kill "$daemon" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    fi
    for pid in $buses; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

dbus-daemon --session --fork --print-address=1 --print-pid=1 --address="unix:dir=$work/run" >"$work/bus"
DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p "$work/bus")
buses="$(sed -n 2p "$work/bus")"
export DBUS_SESSION_BUS_ADDRESS
if [ -x /usr/libexec/at-spi-bus-launcher ]; then
    # In a session of its own, like the session bus (dbus-daemon --fork): Ctrl-C goes to the terminal's
    # foreground process group, and the accessibility bus the launcher starts takes SIGINT as a request
    # to quit; it must outlive the daemon. setsid forks here, so the shell inside says its pid.
    setsid sh -c 'echo $$ >"$1"; exec /usr/libexec/at-spi-bus-launcher --launch-immediately --a11y=1' \
        sh "$work/a11y.pid" >"$work/a11y.log" 2>&1 </dev/null &
    for _ in $(seq 50); do [ -s "$work/a11y.pid" ] && break; sleep 0.1; done
    buses="$(cat "$work/a11y.pid" 2>/dev/null) $buses"
fi

cat <<MSG
snapsize: no session bus was running, so a private one was started for this run.
From a second terminal:
    export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'
    $PWD/$bin/snapsizectl get
Ctrl-C stops snapsized and the private buses.
MSG
"$bin/snapsized" "$@" &
daemon=$!
open_panel
wait "$daemon" || true
daemon=""
