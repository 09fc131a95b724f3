internal import CDBus
internal import SystemCalls

/// A signal as delivered to an `onSignal` handler.
public struct SignalMessage: Sendable, Equatable {
    /// The unique name of the emitter (empty on a peer-to-peer connection).
    public var sender: String
    public var path: ObjectPath
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}

/// Whether the latest of a signal is enough (`state`) or each one matters (`event`): what a
/// connection may do with it while its bus is backed up (`Outbox` rule 4).
public enum SignalKind: Sendable {
    /// It says what something is now (a value, a state): while the bus is backed up, only the latest
    /// with the same path, interface, member and first string argument is kept.
    case state
    /// Each one matters (something happened): never merged with another.
    case event
}

/// Identifies an `onSignal` subscription for `cancel(_:)`.
public struct SubscriptionToken: Hashable, Sendable {
    let id: UInt64
}

struct SignalSubscription {
    var interface: String?
    var member: String?
    var path: ObjectPath?
    var handler: (SignalMessage) -> Void

    func matches(_ message: Message) -> Bool {
        if let interface, interface != message.interface { return false }
        if let member, member != message.member { return false }
        if let path, path != message.path { return false }
        return true
    }
}

/// Signals out (emission) and in (match rules and local handlers).
extension Connection {
    /// Broadcasts a signal from `path`. While the bus is backed up, a `.state` signal may be merged
    /// with a later one under the same path, interface, member and first string argument (only the
    /// latest is sent); an `.event` never is (`Outbox` rule 4). The corresponding C function is
    /// `dbus_message_new_signal`; a signal already sent once is copied rather than built again
    /// (see `MessageTemplates`).
    public func emitSignal(
        path: ObjectPath, interface: InterfaceName, member: String,
        arguments: [DBusValue] = [], as kind: SignalKind
    ) throws(MethodError) {
        submit(
            try signalMessage(path: path, interface: interface, member: member, arguments: arguments),
            as: .signal(kind))
    }

    /// A signal ready to send: a copy of the one built the first time (see `MessageTemplates`).
    func signalMessage(
        path: ObjectPath, interface: InterfaceName, member: String,
        arguments: [DBusValue]
    ) throws(MethodError) -> Message {
        return try templates.message(keyedBy: {
            $0.writeSignal(
                path: path.rawValue, interface: interface.rawValue, member: member, body: arguments)
        }) { () throws(MethodError) in
            try Message.signal(path: path, interface: interface, member: member, body: arguments)
        }
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` (`sa{sv}as`) for `interface` on `path`.
    ///
    /// `changed` keeps the caller's order. Emits nothing when both lists are empty. A `.state`
    /// signal: it carries the current values, so while the bus is backed up only the latest for
    /// the same set of names is sent.
    public func emitPropertiesChanged(
        path: ObjectPath, interface: InterfaceName, changed: [(String, DBusValue)],
        invalidated: [String] = []
    ) throws(MethodError) {
        guard !changed.isEmpty || !invalidated.isEmpty else { return }
        let message = try templates.message(keyedBy: {
            $0.writePropertiesChanged(
                path: path.rawValue, interface: interface.rawValue, changed: changed,
                invalidated: invalidated)
        }) { () throws(MethodError) in
            let entries = changed.map { DBusValue.dictEntry(.string($0.0), .variant($0.1)) }
            return try Message.signal(
                path: path, interface: .properties, member: "PropertiesChanged",
                body: [
                    .string(interface.rawValue), .array(elementSignature: "{sv}", entries),
                    .stringArray(invalidated)
                ])
        }
        submit(message, as: .signal(.state))
    }

    /// Emits PropertiesChanged for the properties `names` of `interface` at `path`, each read through
    /// its getter in the exported table, as sd-bus's `sd_bus_emit_properties_changed` does: the
    /// getter is the only encoder, so what Get answers and what the signal announces cannot differ.
    ///
    /// A property annotated `invalidates` is listed as invalidated, without its value. Naming a
    /// property that is not exported there, or one that never emits (`false`, `const`), is a
    /// program bug and throws; so does a getter that returns the wrong type.
    public func emitPropertiesChanged(path: ObjectPath, interface: InterfaceName, names: [String])
        throws(MethodError)
    {
        guard !names.isEmpty else { return }
        guard let tables = exports.tables(for: path),
            let table = tables.firstIndex(where: { $0.name == interface.rawValue })
        else {
            throw MethodError(
                .unknownInterface, "No interface '\(interface.rawValue)' is exported at \(path.rawValue)"
            )
        }
        var changed: [(String, DBusValue)] = []
        changed.reserveCapacity(names.count)
        var invalidated: [String] = []
        // Rows are read in place (no copies of their closures), and each search starts after the
        // last row found, since names usually come in table order: this runs on every change.
        try tables[table].properties.withUnsafeBufferPointer { rows throws(MethodError) in
            var next = 0
            for name in names {
                guard
                    let row = rows[next...].firstIndex(where: { $0.name == name })
                        ?? rows[..<next].firstIndex(where: { $0.name == name })
                else {
                    throw MethodError(
                        .unknownProperty,
                        "No such property '\(name)' on interface '\(interface.rawValue)'")
                }
                next = row + 1
                switch rows[row].emitsChange {
                case .true:
                    let value = rows[row].get()
                    guard value.signature == rows[row].signature else {
                        throw MethodError(
                            .failed,
                            "The getter of \(interface.rawValue).\(name) returned \"\(value.signature)\" "
                                + "but declares \"\(rows[row].signature)\"")
                    }
                    changed.append((name, value))
                case .invalidates:
                    invalidated.append(name)
                case .false, .const:
                    throw MethodError(
                        .invalidArgs,
                        "Property '\(name)' of '\(interface.rawValue)' does not announce changes "
                            + "(EmitsChangedSignal=\(rows[row].emitsChange.rawValue))")
                }
            }
        }
        try emitPropertiesChanged(
            path: path, interface: interface, changed: changed, invalidated: invalidated)
    }

    /// Asks the bus to route signals matching `rule` (e.g. `type='signal',interface='org.x.Y'`) here.
    ///
    /// Asynchronous: no round trip, so a malformed rule is only reported by the bus, not thrown.
    /// The corresponding C function is `dbus_bus_add_match` with a NULL error.
    public func addMatch(_ rule: String) {
        dbus_bus_add_match(raw, rule, nil)
    }

    /// Removes a rule added with `addMatch`. Asynchronous, like `addMatch`.
    public func removeMatch(_ rule: String) {
        dbus_bus_remove_match(raw, rule, nil)
    }

    /// Calls `handler` on the owning thread for each received signal matching the filter (nil matches anything).
    ///
    /// This only filters what already reaches the connection; add a match rule with `addMatch`
    /// so the bus routes broadcast signals here in the first place.
    @discardableResult
    public func onSignal(
        interface: String?, member: String?, path: ObjectPath? = nil,
        handler: @escaping (SignalMessage) -> Void
    ) -> SubscriptionToken {
        let token = SubscriptionToken(id: nextSubscriptionID)
        nextSubscriptionID += 1
        subscriptions[token] = SignalSubscription(
            interface: interface, member: member, path: path, handler: handler)
        return token
    }

    /// Stops a subscription made with `onSignal`. Unknown tokens are ignored.
    public func cancel(_ token: SubscriptionToken) {
        subscriptions[token] = nil
    }

    /// Runs every matching subscription. Arguments are read once, and only when someone listens.
    func deliverSignal(_ message: Message) {
        let matching = subscriptions.sorted { $0.key.id < $1.key.id }.filter {
            $0.value.matches(message)
        }
        guard !matching.isEmpty, let path = message.path else { return }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments()
        } catch {
            writeDiagnostic(
                "DBusKit: dropping signal \(message.interface ?? "").\(message.member): \(error)")
            return
        }
        let signal = SignalMessage(
            sender: message.sender, path: path, interface: message.interface ?? "",
            member: message.member, arguments: arguments)
        for (token, subscription) in matching where subscriptions[token] != nil {
            subscription.handler(signal)
        }
    }
}
