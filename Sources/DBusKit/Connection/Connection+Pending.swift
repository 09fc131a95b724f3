internal import CDBus

extension Connection {
    /// Reads what the bus has already sent (without waiting) and dispatches every queued message
    /// now, in order. For a client that must take in the signals sent before its next step (a key
    /// press, a reply it has just received) before taking that step: the event loop would dispatch
    /// them only on its next round, and a blocking `call` leaves the signals that came before its
    /// reply queued. Never call it from inside a handler (libdbus does not dispatch recursively).
    public func dispatchPending() {
        guard isConnected else { return }
        _ = dbus_connection_read_write(raw, 0)
        var status = dbus_connection_get_dispatch_status(raw)
        while status == DBUS_DISPATCH_DATA_REMAINS {
            status = dbus_connection_dispatch(raw)
        }
    }
}
