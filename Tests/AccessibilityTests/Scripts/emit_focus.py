"""Plays another application whose object takes focus: broadcasts
object:state-changed:focused (detail1 1) on the accessibility bus, as GTK does, then prints {"sent": true}.
(`gdbus emit --address` does not register with the bus first, so the bus routes its signal to no one.)
"""
import os

from gi.repository import Gio, GLib
from atspi_common import emit

flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
bus = Gio.DBusConnection.new_for_address_sync(os.environ["AT_SPI_BUS_ADDRESS"], flags, None, None)
bus.emit_signal(None, "/org/example/Editor/entry", "org.a11y.atspi.Event.Object", "StateChanged",
                GLib.Variant("(siiva{sv})", ("focused", 1, 0, GLib.Variant("i", 0), {})))
bus.flush_sync(None)
emit({"sent": True})
