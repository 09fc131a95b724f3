internal import CDBus

/// Owns one reference to a `DBusMessage` and offers the header fields DBusKit needs.
///
/// Internal on purpose: the public API speaks in `DBusValue`s and names, never in messages.
final class Message {
    let raw: OpaquePointer
    /// For a method return held by a group commit on a connection that never answers with an error
    /// when the group is undone: the member it answers, and the reply to send instead (nil: as it is).
    var undone: (member: String, reply: [DBusValue]?)?

    /// Takes over a reference the caller already owns (from `dbus_message_new_*` or `steal_reply`).
    init(adopting raw: OpaquePointer) { self.raw = raw }

    /// Adds a reference to a message libdbus lends us (e.g. inside a filter callback).
    init(retaining raw: OpaquePointer) {
        self.raw = raw
        dbus_message_ref(raw)
    }

    deinit { dbus_message_unref(raw) }

    static func methodCall(destination: String?, path: ObjectPath, interface: String?, member: String)
        throws(MethodError) -> Message
    {
        try checkMember(member)
        if let interface, InterfaceName(rawValue: interface) == nil {
            throw MethodError(.invalidArgs, "invalid interface name \"\(interface)\"")
        }
        if let destination, BusName(rawValue: destination) == nil {
            throw MethodError(.invalidArgs, "invalid bus name \"\(destination)\"")
        }
        guard let raw = dbus_message_new_method_call(destination, path.rawValue, interface, member)
        else {
            outOfMemory("dbus_message_new_method_call")
        }
        return Message(adopting: raw)
    }

    static func signal(path: ObjectPath, interface: InterfaceName, member: String) throws(MethodError)
        -> Message
    {
        try checkMember(member)
        guard let raw = dbus_message_new_signal(path.rawValue, interface.rawValue, member) else {
            outOfMemory("dbus_message_new_signal")
        }
        return Message(adopting: raw)
    }

    private static func checkMember(_ member: String) throws(MethodError) {
        guard isValidMemberName(member) else {
            throw MethodError(.invalidArgs, "invalid member name \"\(member)\"")
        }
    }

    /// A method return with no reply serial or destination yet: a template for
    /// `MessageTemplates`, addressed with `address(to:)` and `answer(_:)`.
    static func unaddressedMethodReturn() -> Message {
        guard let raw = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN) else {
            outOfMemory("dbus_message_new")
        }
        dbus_message_set_no_reply(raw, 1)
        return Message(adopting: raw)
    }

    /// Makes this method return a template of replies to `destination` (none: a connection
    /// without a bus). Its reply serial is left to `answer(_:)`: libdbus appends a field to the header
    /// for less than it takes to find and rewrite one already there.
    func address(to destination: UnsafePointer<CChar>?) {
        if let destination {
            checkMemory(dbus_message_set_destination(raw, destination), "dbus_message_set_destination")
        }
    }

    /// Makes this copy of a template made by `address(to:)` with the call's sender answer `call`,
    /// as `dbus_message_new_method_return` would: the call's serial as the reply serial.
    func answer(_ call: Message) {
        checkMemory(
            dbus_message_set_reply_serial(raw, dbus_message_get_serial(call.raw)),
            "dbus_message_set_reply_serial")
    }

    /// An error reply for `call`.
    func errorReply(_ error: MethodError) -> Message {
        guard let reply = dbus_message_new_error(raw, error.name.rawValue, error.message) else {
            outOfMemory("dbus_message_new_error")
        }
        return Message(adopting: reply)
    }

    /// An error answering the same call as this method return (same reply serial and destination).
    func errorInsteadOfReturn(_ error: MethodError) -> Message {
        Message.refusal(
            answering: dbus_message_get_reply_serial(raw),
            destination: dbus_message_get_destination(raw).map { String(cString: $0) }, error)
    }

    /// A method return answering the same call as this one (same reply serial and destination) with `body`.
    func returnInstead(_ body: [DBusValue]) -> Message {
        guard let reply = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN) else {
            outOfMemory("dbus_message_new")
        }
        let message = Message(adopting: reply)
        dbus_message_set_no_reply(reply, 1)
        checkMemory(
            dbus_message_set_reply_serial(reply, dbus_message_get_reply_serial(raw)),
            "dbus_message_set_reply_serial")
        if let destination = dbus_message_get_destination(raw) {
            checkMemory(dbus_message_set_destination(reply, destination), "dbus_message_set_destination")
        }
        try? message.append(body)
        return message
    }

    var type: Int32 { dbus_message_get_type(raw) }
    var isMethodCall: Bool { type == DBUS_MESSAGE_TYPE_METHOD_CALL }
    var isSignal: Bool { type == DBUS_MESSAGE_TYPE_SIGNAL }
    var isError: Bool { type == DBUS_MESSAGE_TYPE_ERROR }
    var sender: String { string(dbus_message_get_sender(raw)) ?? "" }
    var path: ObjectPath? { string(dbus_message_get_path(raw)).map(ObjectPath.init(unchecked:)) }
    var interface: String? { string(dbus_message_get_interface(raw)) }
    var member: String { string(dbus_message_get_member(raw)) ?? "" }
    var errorName: String? { string(dbus_message_get_error_name(raw)) }
    var signature: String { string(dbus_message_get_signature(raw)) ?? "" }
    var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }
    var serial: UInt32 { dbus_message_get_serial(raw) }
    var destination: String? { string(dbus_message_get_destination(raw)) }
    var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// Appends `values` to the body after checking each against the D-Bus type rules.
    ///
    /// Throws InvalidArgs (and writes nothing) when a value is malformed.
    func append(_ values: [DBusValue]) throws(MethodError) {
        for value in values {
            if let problem = value.validationProblem { throw MethodError(.invalidArgs, problem) }
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values { MessageWriter.append(value, to: &iter) }
    }

    /// Reads the whole body (a unix fd becomes a `UnixFD` that owns a duplicate of it).
    func arguments() throws(MethodError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }  // FALSE means an empty body
        return try MessageReader.readAll(&iter)
    }

    /// The error carried by an error reply: its name and first string argument.
    var methodError: MethodError {
        let name = errorName.flatMap(ErrorName.init(rawValue:)) ?? .failed
        let text = ((try? arguments())?.first?.asString) ?? ""
        return MethodError(name, text)
    }

    /// Serialises and parses `values` through a real message, as a bus would.
    ///
    /// For tests, which prove with it that writing and reading are inverse.
    static func roundTrip(_ values: [DBusValue]) throws(MethodError) -> [DBusValue] {
        let message = try Message.methodCall(
            destination: nil, path: .root, interface: nil, member: "RoundTrip")
        try message.append(values)
        dbus_message_set_serial(message.raw, 1)
        var bytes: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        checkMemory(dbus_message_marshal(message.raw, &bytes, &length))
        defer { dbus_free(bytes) }
        let parsed = try withDBusError { error in dbus_message_demarshal(bytes, length, error) }
        guard let parsed else { throw MethodError(.failed, "dbus_message_demarshal returned NULL") }
        return try Message(adopting: parsed).arguments()
    }
}

/// Writes `DBusValue`s with `dbus_message_iter_*`. Values must already be validated.
enum MessageWriter {
    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) {
        switch value {
        case .byte(var v): basic(&iter, CDBUS_TYPE_BYTE, &v)
        case .boolean(let b):
            var v: dbus_bool_t = b ? 1 : 0  // 4 bytes on the wire; a Swift Bool is 1 byte
            basic(&iter, CDBUS_TYPE_BOOLEAN, &v)
        case .int16(var v): basic(&iter, CDBUS_TYPE_INT16, &v)
        case .uint16(var v): basic(&iter, CDBUS_TYPE_UINT16, &v)
        case .int32(var v): basic(&iter, CDBUS_TYPE_INT32, &v)
        case .uint32(var v): basic(&iter, CDBUS_TYPE_UINT32, &v)
        case .int64(var v): basic(&iter, CDBUS_TYPE_INT64, &v)
        case .uint64(var v): basic(&iter, CDBUS_TYPE_UINT64, &v)
        case .double(var v): basic(&iter, CDBUS_TYPE_DOUBLE, &v)
        case .string(let s): cString(&iter, CDBUS_TYPE_STRING, s)
        case .objectPath(let p): cString(&iter, CDBUS_TYPE_OBJECT_PATH, p.rawValue)
        case .signature(let s): cString(&iter, CDBUS_TYPE_SIGNATURE, s)
        case .array(let element, let values):
            container(&iter, CDBUS_TYPE_ARRAY, element) { sub in
                for value in values { append(value, to: &sub) }
            }
        case .structure(let members):
            container(&iter, CDBUS_TYPE_STRUCT, nil) { sub in
                for member in members { append(member, to: &sub) }
            }
        case .variant(let inner):
            container(&iter, CDBUS_TYPE_VARIANT, inner.signature) { sub in append(inner, to: &sub) }
        case .dictEntry(let key, let value):
            container(&iter, CDBUS_TYPE_DICT_ENTRY, nil) { sub in
                append(key, to: &sub)
                append(value, to: &sub)
            }
        case .unixFD(let fd):
            // Never reached (validation refuses it); libdbus would duplicate the descriptor.
            var v = fd.descriptor
            basic(&iter, CDBUS_TYPE_UNIX_FD, &v)
        }
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: inout T) {
        checkMemory(
            withUnsafeMutablePointer(to: &value) { dbus_message_iter_append_basic(&iter, type, $0) },
            "dbus_message_iter_append_basic")
    }

    /// Strings are appended through a `const char **`.
    private static func cString(_ iter: inout DBusMessageIter, _ type: Int32, _ s: String) {
        s.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            basic(&iter, type, &p)
        }
    }

    /// Children are written by `body` rather than passed as an array, so a variant or a dict entry
    /// does not allocate one per value written.
    private static func container(
        _ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?,
        _ body: (inout DBusMessageIter) -> Void
    ) {
        var sub = DBusMessageIter()
        // withCString: an optional String passed straight to C is copied into a new array first.
        let opened =
            signature.map { $0.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) } }
            ?? dbus_message_iter_open_container(&iter, type, nil, &sub)
        checkMemory(opened, "dbus_message_iter_open_container")
        body(&sub)
        checkMemory(dbus_message_iter_close_container(&iter, &sub), "dbus_message_iter_close_container")
    }
}

/// Reads `DBusValue`s with `dbus_message_iter_*`. libdbus has validated the message already.
enum MessageReader {
    static func readAll(_ iter: inout DBusMessageIter) throws(MethodError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    static func read(_ iter: inout DBusMessageIter) throws(MethodError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case CDBUS_TYPE_BYTE: return .byte(basic(&iter, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .boolean(basic(&iter, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(basic(&iter, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(basic(&iter, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(basic(&iter, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(basic(&iter, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(basic(&iter, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(basic(&iter, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(basic(&iter, Double(0)))
        case CDBUS_TYPE_STRING: return .string(cString(&iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(ObjectPath(unchecked: cString(&iter)))
        case CDBUS_TYPE_SIGNATURE: return .signature(cString(&iter))
        case CDBUS_TYPE_UNIX_FD:
            // get_basic duplicates the message's descriptor (close-on-exec): the value owns the copy.
            return .unixFD(UnixFD(adopting: basic(&iter, Int32(-1))))
        case CDBUS_TYPE_ARRAY:
            let full = iterSignature(&iter)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .array(elementSignature: String(full.dropFirst()), try readAll(&sub))
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub))
        case CDBUS_TYPE_DICT_ENTRY:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            let pair = try readAll(&sub)
            guard pair.count == 2 else { throw MethodError(.invalidArgs, "malformed dict entry") }
            return .dictEntry(pair[0], pair[1])
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            guard let inner = try readAll(&sub).first else {
                throw MethodError(.invalidArgs, "empty variant")
            }
            return .variant(inner)
        default:
            let code = UnicodeScalar(UInt8(truncatingIfNeeded: type))
            throw MethodError(.invalidArgs, "unsupported D-Bus type '\(Character(code))'")
        }
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    /// Strings from get_basic point into the message; copy them before it is released.
    private static func cString(_ iter: inout DBusMessageIter) -> String {
        let pointer = basic(&iter, UnsafePointer<CChar>?.none)
        return string(pointer) ?? ""
    }

    /// `dbus_message_iter_get_signature` returns malloc'd memory owned by us.
    private static func iterSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else {
            outOfMemory("dbus_message_iter_get_signature")
        }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}

extension Message {
    /// An error answering the call with `serial` from `destination` (none: a connection without a
    /// bus), made without the call itself.
    static func refusal(answering serial: UInt32, destination: String?, _ error: MethodError) -> Message
    {
        guard let reply = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR) else {
            outOfMemory("dbus_message_new")
        }
        let message = Message(adopting: reply)
        dbus_message_set_no_reply(reply, 1)
        checkMemory(
            dbus_message_set_error_name(reply, error.name.rawValue), "dbus_message_set_error_name")
        checkMemory(dbus_message_set_reply_serial(reply, serial), "dbus_message_set_reply_serial")
        if let destination {
            checkMemory(dbus_message_set_destination(reply, destination), "dbus_message_set_destination")
        }
        try? message.append([.string(error.message)])
        return message
    }
}
