internal import CDBus

/// Signals that say what something IS now ("the value is 3", "focused"), held back while the bus
/// does not read: at most one per key, the latest, in the order of those latest ones (so a "rename,
/// then show" sequence still arrives in that order).
struct HeldSignals {
    private var order: [String] = []
    private var messages: [String: Message] = [:]

    var isEmpty: Bool { order.isEmpty }
    var count: Int { order.count }

    mutating func hold(_ message: Message, key: String) {
        if messages.updateValue(message, forKey: key) != nil { order.removeAll { $0 == key } }
        order.append(key)
    }

    mutating func takeAll() -> [Message] {
        defer { self = HeldSignals() }
        return order.compactMap { messages[$0] }
    }
}

/// A bounded outgoing queue for state signals: a bus that stops reading (wedged, or its
/// dbus-daemon stopped with SIGSTOP) must not make the process grow with every change.
extension Connection {
    /// Bytes waiting to be written above which signals are held back instead of queued (`send`).
    public static let backlogLimit = 64 * 1024

    /// Bytes waiting to be written above which the event loop stops reading from the connection and
    /// dispatching what it has read, until the bus has taken all but half of them: backpressure, so
    /// that a client pipelining calls without reading their replies (or a bus that stops reading)
    /// cannot make the replies pile up here. The client's calls then wait in the bus, which bounds
    /// them by its own limits.
    public static let readingPauseLimit = 256 * 1024

    /// Bytes queued for sending and not yet written. The corresponding C function is
    /// `dbus_connection_get_outgoing_size`.
    public var queuedBytes: Int { Int(dbus_connection_get_outgoing_size(raw)) }

    /// Sends what was held, once the backlog is down to half the limit.
    func releaseHeldSignals() {
        guard !held.isEmpty, !isClosed, queuedBytes <= Self.backlogLimit / 2 else { return }
        for message in held.takeAll() { enqueue(message) }
    }

    /// The key a signal sent through `emitSignal` or `emitPropertiesChanged` is held under: later
    /// ones with the same key replace it. PropertiesChanged carries the current values of the
    /// properties it names, so the latest of each set of names still leaves every property's latest
    /// value last (the held order follows each key's latest signal).
    static func latestKey(of message: Message) -> String {
        var key = "\(message.path?.rawValue ?? "") \(message.interface ?? "") \(message.member)"
        let arguments = (try? message.arguments()) ?? []
        if let detail = arguments.first?.asString { key += " \(detail)" }  // an AT-SPI event's kind, say
        if message.member == "PropertiesChanged", arguments.count == 3 {
            let names = (arguments[1].asArray ?? []).compactMap { entry -> String? in
                if case .dictEntry(let name, _) = entry { return name.asString }
                return nil
            }
            key += " \(names.joined(separator: ",")) \(arguments[2].asStringArray?.joined(separator: ",") ?? "")"
        }
        return key
    }
}
