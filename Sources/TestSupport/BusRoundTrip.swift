import DBusKit

extension Connection {
    /// A round trip to the bus itself (`org.freedesktop.DBus.Peer.Ping`, answered by the
    /// dbus-daemon): once it returns, the bus has gone through its loop after everything that was
    /// already in its sockets when the ping was sent, so what it read then is routed, and written
    /// to each receiver as far as that receiver's socket takes it. The daemon relies on the same
    /// order for `Focus` (FocusAnswers). Throws when the bus does not answer within `timeoutMilliseconds`.
    public func roundTripToBus(timeoutMilliseconds: Int32 = 5000) throws(MethodError) {
        _ = try call(
            destination: BusName.bus.rawValue, path: .bus, interface: InterfaceName.peer.rawValue,
            member: "Ping",
            timeoutMilliseconds: timeoutMilliseconds)
    }
}
