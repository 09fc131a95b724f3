/// `.state` signals, which say what something IS now ("the value is 3", "focused"), held back while
/// the bus does not read (`Outbox` rule 4): at most one per key, the latest, in the order of those
/// latest ones (so a "rename, then show" sequence still arrives in that order).
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

    /// The latest-key a state signal is held under: a later one with the same key replaces it. It is
    /// the path, interface, member and first string argument (an AT-SPI event's kind, say), and for
    /// PropertiesChanged the names it carries: that signal carries the current values of the
    /// properties it names, so the latest of each set of names still leaves every property's latest
    /// value last (the held order follows each key's latest signal).
    static func key(of message: Message) -> String {
        var key = "\(message.path?.rawValue ?? "") \(message.interface ?? "") \(message.member)"
        let arguments = (try? message.arguments()) ?? []
        if let detail = arguments.first?.asString { key += " \(detail)" }  // an AT-SPI event's kind, say
        if message.member == "PropertiesChanged", arguments.count == 3 {
            let names = (arguments[1].asArray ?? []).compactMap { entry -> String? in
                if case .dictEntry(let name, _) = entry { return name.asString }
                return nil
            }
            key +=
                " \(names.joined(separator: ",")) \(arguments[2].asStringArray?.joined(separator: ",") ?? "")"
        }
        return key
    }
}
