internal import CDBus

extension BusName {
    /// The message bus itself, `org.freedesktop.DBus`.
    public static let bus = BusName(unchecked: DBUS_SERVICE_DBUS)
}

extension ObjectPath {
    /// The message bus's object, `/org/freedesktop/DBus`.
    public static let bus = ObjectPath(unchecked: DBUS_PATH_DBUS)
}

extension InterfaceName {
    /// The message bus's interface, `org.freedesktop.DBus`.
    public static let bus = InterfaceName(unchecked: DBUS_INTERFACE_DBUS)
}

/// Questions to the message bus about names.
extension Connection {
    /// Whether `name` has an owner now. Blocks for the answer (at most `timeoutMilliseconds`).
    public func nameHasOwner(_ name: String, timeoutMilliseconds: Int32 = -1) throws(MethodError) -> Bool
    {
        try answer(
            to: callBus("NameHasOwner", [.string(name)], timeoutMilliseconds: timeoutMilliseconds))
    }

    /// Whether `name` has an owner, answered later from the event loop (never blocks the caller).
    /// Throws only when the question could not be sent.
    public func nameHasOwner(
        _ name: String, timeoutMilliseconds: Int32 = -1,
        reply: @escaping (Result<Bool, MethodError>) -> Void
    ) throws(MethodError) {
        try callAsync(
            destination: BusName.bus.rawValue, path: .bus, interface: InterfaceName.bus.rawValue,
            member: "NameHasOwner", arguments: [.string(name)], timeoutMilliseconds: timeoutMilliseconds
        ) { result in
            reply(
                result.flatMap { values in
                    Result { () throws(MethodError) in try Connection.answer(to: values) }
                })
        }
    }

    /// The unique name that owns `name`, or NameHasNoOwner.
    public func nameOwner(_ name: String, timeoutMilliseconds: Int32 = -1) throws(MethodError) -> String
    {
        let reply = try callBus(
            "GetNameOwner", [.string(name)], timeoutMilliseconds: timeoutMilliseconds)
        guard reply.count == 1, let owner = reply[0].asString else {
            throw Self.malformed("GetNameOwner", reply)
        }
        return owner
    }

    /// The names the bus can start on demand (D-Bus activation).
    public func activatableNames(timeoutMilliseconds: Int32 = -1) throws(MethodError) -> [String] {
        let reply = try callBus("ListActivatableNames", timeoutMilliseconds: timeoutMilliseconds)
        guard reply.count == 1, let names = reply[0].asStringArray else {
            throw Self.malformed("ListActivatableNames", reply)
        }
        return names
    }

    private func callBus(_ member: String, _ arguments: [DBusValue] = [], timeoutMilliseconds: Int32)
        throws(MethodError)
        -> [DBusValue]
    {
        try call(
            destination: BusName.bus.rawValue, path: .bus, interface: InterfaceName.bus.rawValue,
            member: member,
            arguments: arguments, timeoutMilliseconds: timeoutMilliseconds)
    }

    private func answer(to reply: [DBusValue]) throws(MethodError) -> Bool { try Self.answer(to: reply) }

    private static func answer(to reply: [DBusValue]) throws(MethodError) -> Bool {
        guard reply.count == 1, let owned = reply[0].asBool else {
            throw malformed("NameHasOwner", reply)
        }
        return owned
    }

    private static func malformed(_ member: String, _ reply: [DBusValue]) -> MethodError {
        MethodError(.failed, "The bus answered \(member) with signature '\(signature(of: reply))'")
    }
}
