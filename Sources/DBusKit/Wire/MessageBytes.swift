internal import CDBus

/// A signal written byte by byte as the D-Bus specification lays a message out (little-endian),
/// then taken whole by libdbus (`dbus_message_demarshal`, which checks it as it would a message
/// read from a socket): for a message that is built once and then copied (`MessageTemplates`) but
/// whose first build lies on a caller's path, such as a new client's first `PropertiesChanged`.
/// libdbus's own writer (`dbus_message_iter_*`) rewrites the header's SIGNATURE field after every
/// top-level argument and checks every container's signature as it opens it, which makes it the
/// dearer of the two by far (the figures are in Benchmarks/PERFORMANCE-LOG.md).
///
/// Values must be valid (`DBusValue.validationProblem`); a unix fd is never written.
struct MessageBytes {
    private(set) var bytes: [UInt8] = []

    /// The bytes of a signal from `path` with `body`, serial 1 (libdbus refuses serial 0; a copy
    /// of the message, which is what is sent, gets a serial of its own).
    static func signal(path: String, interface: String, member: String, body: [DBusValue]) -> [UInt8] {
        var bodyBytes = MessageBytes()
        bodyBytes.bytes.reserveCapacity(256)
        for value in body { bodyBytes.append(value) }
        var message = MessageBytes()
        message.bytes.reserveCapacity(bodyBytes.bytes.count + 128)
        message.bytes += [
            UInt8(ascii: "l"), UInt8(DBUS_MESSAGE_TYPE_SIGNAL),
            UInt8(DBUS_HEADER_FLAG_NO_REPLY_EXPECTED), 1
        ]
        message.append(UInt32(bodyBytes.bytes.count))
        message.append(UInt32(1))
        // The header fields, a(yv): the array's length, then each field as a struct.
        let fields = message.startArray(elementAlignment: 8)
        message.field(UInt8(DBUS_HEADER_FIELD_PATH), .objectPath(ObjectPath(unchecked: path)))
        message.field(UInt8(DBUS_HEADER_FIELD_INTERFACE), .string(interface))
        message.field(UInt8(DBUS_HEADER_FIELD_MEMBER), .string(member))
        if !body.isEmpty {
            // As `field` would write `.signature(…)` of the body's types, without making that string.
            message.pad(to: 8)
            message.bytes += [UInt8(DBUS_HEADER_FIELD_SIGNATURE), 1, UInt8(ascii: "g"), 0]
            message.appendSignature(of: body)
        }
        message.endArray(fields)
        message.pad(to: 8)  // the body starts on a multiple of 8
        return message.bytes + bodyBytes.bytes
    }

    private mutating func field(_ code: UInt8, _ value: DBusValue) {
        append(.structure([.byte(code), .variant(value)]))
    }

    mutating func pad(to alignment: Int) {
        let remainder = bytes.count % alignment
        if remainder != 0 { bytes.append(contentsOf: repeatElement(0, count: alignment - remainder)) }
    }

    private mutating func append<T: FixedWidthInteger>(_ number: T) {
        pad(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func appendString(_ string: String) {
        append(UInt32(string.utf8.count))
        bytes.append(contentsOf: string.utf8)
        bytes.append(0)
    }

    private mutating func appendSignature(_ signature: String) {
        bytes.append(UInt8(signature.utf8.count))
        bytes.append(contentsOf: signature.utf8)
        bytes.append(0)
    }

    /// The signature of `values` in a row, as a value of type `g`, written where it is needed
    /// (a variant's type, the header's SIGNATURE) rather than made as a string first.
    private mutating func appendSignature(of values: [DBusValue]) {
        let length = bytes.count
        bytes.append(0)
        for value in values { writeTypes(of: value) }
        // A signature is at most 255 bytes, so its length fits the byte before it.
        bytes[length] = UInt8(truncatingIfNeeded: bytes.count - length - 1)
        bytes.append(0)
    }

    private mutating func appendSignature(of value: DBusValue) {
        let length = bytes.count
        bytes.append(0)
        writeTypes(of: value)
        bytes[length] = UInt8(truncatingIfNeeded: bytes.count - length - 1)
        bytes.append(0)
    }

    /// `value.signature`'s characters: a structure's and a dict entry's members written in place, every
    /// other type's (one code, or an array's "a" and element) from `signature`, where the codes are spelled.
    private mutating func writeTypes(of value: DBusValue) {
        switch value {
        case .structure(let members):
            bytes.append(UInt8(ascii: "("))
            for member in members { writeTypes(of: member) }
            bytes.append(UInt8(ascii: ")"))
        case .dictEntry(let key, let value):
            bytes.append(UInt8(ascii: "{"))
            writeTypes(of: key)
            writeTypes(of: value)
            bytes.append(UInt8(ascii: "}"))
        default: bytes.append(contentsOf: value.signature.utf8)
        }
    }

    /// Writes the length's place and the padding before the first element; returns where the
    /// length goes and where the elements start, for `endArray`.
    private mutating func startArray(elementAlignment: Int) -> (length: Int, start: Int) {
        append(UInt32(0))
        let length = bytes.count - 4
        pad(to: elementAlignment)
        return (length, bytes.count)
    }

    /// The array's length: its elements' bytes, without the padding before the first.
    private mutating func endArray(_ array: (length: Int, start: Int)) {
        let count = UInt32(bytes.count - array.start).littleEndian
        withUnsafeBytes(of: count) { bytes.replaceSubrange(array.length..<array.length + 4, with: $0) }
    }

    mutating func append(_ value: DBusValue) {
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let v): append(UInt32(v ? 1 : 0))
        case .int16(let v): append(v)
        case .uint16(let v): append(v)
        case .int32(let v): append(v)
        case .uint32(let v): append(v)
        case .int64(let v): append(v)
        case .uint64(let v): append(v)
        case .double(let v): append(v.bitPattern)
        case .string(let v): appendString(v)
        case .objectPath(let v): appendString(v.rawValue)
        case .signature(let v): appendSignature(v)
        case .array(let element, let values):
            let array = startArray(elementAlignment: Self.alignment(of: element))
            for value in values { append(value) }
            endArray(array)
        case .structure(let members):
            pad(to: 8)
            for member in members { append(member) }
        case .dictEntry(let key, let value):
            pad(to: 8)
            append(key)
            append(value)
        case .variant(let inner):
            appendSignature(of: inner)
            append(inner)
        case .unixFD:
            preconditionFailure("a unix fd is never sent (DBusValue.validationProblem)")
        }
    }

    /// The alignment of a value whose signature starts `signature`'s first type.
    private static func alignment(of signature: String) -> Int {
        switch signature.utf8.first {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("),
            UInt8(ascii: "{"):
            8
        default: 4  // b i u h s o a
        }
    }
}

extension Message {
    /// A signal built from its bytes (`MessageBytes`): the same message as `signal(path:interface:member:)`
    /// with `body` appended, for less work. Throws InvalidArgs for a malformed value or name, as
    /// those do.
    static func signal(path: ObjectPath, interface: InterfaceName, member: String, body: [DBusValue])
        throws(MethodError) -> Message
    {
        guard isValidMemberName(member) else {
            throw MethodError(.invalidArgs, "invalid member name \"\(member)\"")
        }
        for value in body {
            if let problem = value.validationProblem { throw MethodError(.invalidArgs, problem) }
        }
        let bytes = MessageBytes.signal(
            path: path.rawValue, interface: interface.rawValue, member: member, body: body)
        let made = try withDBusError { error in
            bytes.withUnsafeBytes { raw in
                dbus_message_demarshal(
                    raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(raw.count), error)
            }
        }
        guard let made else { throw MethodError(.failed, "dbus_message_demarshal returned NULL") }
        return Message(adopting: made)
    }
}
