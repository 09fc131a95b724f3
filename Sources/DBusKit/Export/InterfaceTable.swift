/// Object tables as data, in the style of an sd-bus vtable: one row per member.
///
/// The same table drives the dispatcher (signature checks, Properties, replies) and the
/// introspection XML, so the two cannot drift apart.

/// A named argument of a method or signal, e.g. `Argument("index", "u")`.
public struct Argument: Sendable, Equatable {
    public var name: String
    public var signature: String

    public init(_ name: String, _ signature: String) {
        self.name = name
        self.signature = signature
    }
}

/// An incoming method call as a handler sees it.
public struct MethodCall: Sendable {
    /// The unique bus name of the caller.
    public var sender: String
    public var path: ObjectPath
    /// Nil when the caller did not name an interface.
    public var interface: String?
    public var member: String
    /// Already checked against the method's input signature.
    public var arguments: [DBusValue]

    public init(
        sender: String, path: ObjectPath, interface: String?, member: String, arguments: [DBusValue]
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The argument at `index`, or InvalidArgs.
    public func argument(_ index: Int) throws(MethodError) -> DBusValue {
        guard arguments.indices.contains(index) else {
            throw MethodError(.invalidArgs, "\(member): missing argument \(index)")
        }
        return arguments[index]
    }

    public func string(_ index: Int) throws(MethodError) -> String {
        try typed(index, "s") { $0.asString }
    }
    public func uint32(_ index: Int) throws(MethodError) -> UInt32 {
        try typed(index, "u") { $0.asUInt32 }
    }
    public func int32(_ index: Int) throws(MethodError) -> Int32 { try typed(index, "i") { $0.asInt32 } }
    public func int64(_ index: Int) throws(MethodError) -> Int64 { try typed(index, "x") { $0.asInt64 } }
    public func uint64(_ index: Int) throws(MethodError) -> UInt64 {
        try typed(index, "t") { $0.asUInt64 }
    }
    public func double(_ index: Int) throws(MethodError) -> Double {
        try typed(index, "d") { $0.asDouble }
    }
    public func bool(_ index: Int) throws(MethodError) -> Bool { try typed(index, "b") { $0.asBool } }
    public func objectPath(_ index: Int) throws(MethodError) -> ObjectPath {
        try typed(index, "o") { $0.asObjectPath }
    }
    /// The content of a variant argument.
    public func variant(_ index: Int) throws(MethodError) -> DBusValue {
        try typed(index, "v") { $0.asVariant }
    }

    private func typed<T>(_ index: Int, _ expected: String, _ extract: (DBusValue) -> T?)
        throws(MethodError) -> T
    {
        let value = try argument(index)
        guard let result = extract(value) else {
            throw MethodError(
                .invalidArgs,
                "\(member): argument \(index) must have type \"\(expected)\", got \"\(value.signature)\""
            )
        }
        return result
    }
}

/// A method row: name, typed inputs and outputs, and the handler.
public struct Method {
    public typealias Handler = (MethodCall) throws(MethodError) -> [DBusValue]

    public var name: String
    public var inputs: [Argument] { didSet { inputSignature = Self.signature(inputs) } }
    public var outputs: [Argument] { didSet { outputSignature = Self.signature(outputs) } }
    /// Runs on the connection's thread; its result must match `outputs`.
    public var handler: Handler

    /// Kept rather than computed: the dispatcher compares them on every call.
    public private(set) var inputSignature: String
    public private(set) var outputSignature: String
    /// The reply sent instead of the handler's when the group commit the call was dispatched in is
    /// undone, on a connection that never answers with an error then (`answersUndoneCallsWithErrors`
    /// false): AT-SPI's DoAction says `false`, not the `true` of a step that did not last.
    public var undoneReply: [DBusValue]?

    public init(
        _ name: String, inputs: [Argument] = [], outputs: [Argument] = [],
        undoneReply: [DBusValue]? = nil,
        handler: @escaping Handler
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.undoneReply = undoneReply
        self.handler = handler
        inputSignature = Self.signature(inputs)
        outputSignature = Self.signature(outputs)
    }

    private static func signature(_ arguments: [Argument]) -> String {
        arguments.map(\.signature).joined()
    }
}

/// A property row.
public struct Property {
    public enum Access: Sendable { case read, readWrite }

    /// The value of the `org.freedesktop.DBus.Property.EmitsChangedSignal` annotation.
    public enum EmitsChange: String, Sendable {
        /// PropertiesChanged carries the new value (the D-Bus default, so no annotation is written).
        case `true`
        /// PropertiesChanged lists the property as invalidated, without the value.
        case invalidates
        /// No signal: clients must poll.
        case `false`
        /// The value never changes for the lifetime of the object.
        case const
    }

    public typealias Setter = (DBusValue, _ sender: String) throws(MethodError) -> Void

    public var name: String
    public var signature: String
    public var access: Access
    public var emitsChange: EmitsChange
    public var get: () -> DBusValue
    /// Receives the variant's content, already checked against `signature`. Nil for read-only properties.
    public var set: Setter?

    public init(
        _ name: String, signature: String, access: Access = .read, emitsChange: EmitsChange = .true,
        get: @escaping () -> DBusValue, set: Setter? = nil
    ) {
        self.name = name
        self.signature = signature
        self.access = access
        self.emitsChange = emitsChange
        self.get = get
        self.set = set
    }

    /// Writable only when declared `.readWrite` and given a setter.
    var isWritable: Bool { access == .readWrite && set != nil }
}

/// A signal row; used for introspection (emission goes through `Connection.emitSignal`).
public struct SignalSpec: Sendable {
    public var name: String
    public var arguments: [Argument]

    public init(_ name: String, arguments: [Argument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// Everything one interface of an object offers.
public struct InterfaceTable {
    public var name: String
    public var methods: [Method]
    public var properties: [Property]
    public var signals: [SignalSpec]

    public init(
        _ name: String, methods: [Method] = [], properties: [Property] = [], signals: [SignalSpec] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    public func method(named name: String) -> Method? { methods.first { $0.name == name } }
    public func property(named name: String) -> Property? { properties.first { $0.name == name } }

    /// The `<interface>` element for this table, each line prefixed by `indent` spaces.
    public func introspectionXML(indent: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines = ["\(pad)<interface name=\"\(xmlEscape(name))\">"]
        for method in methods {
            let args =
                method.inputs.map { argXML($0, direction: "in") }
                + method.outputs.map { argXML($0, direction: "out") }
            lines += element("method", method.name, args, pad: pad)
        }
        for signal in signals {
            lines += element(
                "signal", signal.name, signal.arguments.map { argXML($0, direction: nil) }, pad: pad)
        }
        for property in properties {
            let access = property.access == .readWrite ? "readwrite" : "read"
            let open =
                "\(pad)  <property name=\"\(xmlEscape(property.name))\" type=\"\(xmlEscape(property.signature))\" access=\"\(access)\""
            if property.emitsChange == .true {
                lines.append(open + "/>")
            } else {
                lines.append(open + ">")
                lines.append(
                    "\(pad)    <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.emitsChange.rawValue)\"/>"
                )
                lines.append("\(pad)  </property>")
            }
        }
        lines.append("\(pad)</interface>")
        return lines.joined(separator: "\n") + "\n"
    }

    private func argXML(_ argument: Argument, direction: String?) -> String {
        let dir = direction.map { " direction=\"\($0)\"" } ?? ""
        return
            "<arg name=\"\(xmlEscape(argument.name))\" type=\"\(xmlEscape(argument.signature))\"\(dir)/>"
    }

    private func element(_ kind: String, _ name: String, _ children: [String], pad: String) -> [String] {
        let open = "\(pad)  <\(kind) name=\"\(xmlEscape(name))\""
        if children.isEmpty { return [open + "/>"] }
        return [open + ">"] + children.map { "\(pad)    \($0)" } + ["\(pad)  </\(kind)>"]
    }
}

/// Escapes text for an XML attribute value.
func xmlEscape(_ s: String) -> String {
    var out = ""
    for c in s {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        default: out.append(c)
        }
    }
    return out
}
