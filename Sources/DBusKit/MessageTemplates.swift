internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// Messages built once and copied for every send.
///
/// Writing a body with libdbus costs far more than its size suggests: each top-level argument
/// rewrites the header's SIGNATURE field. Building an AT-SPI PropertyChange event (`siiva{sv}`)
/// takes 7.8 µs in C here, and `dbus_message_copy` of a built one 0.08 µs. In snapsized
/// (callgrind, with the send): the event went from 119,000 instructions to 9,500, a
/// PropertiesChanged from 89,000 to 12,000 and a `(uib)` reply from 52,000 to 16,000. A
/// selector sends the same few messages over and over (one per size), so each distinct message
/// is built once (make bench: call -> accessible-value event, server CPU per call).
///
/// A copy is a new, unsent message: libdbus gives it its own serial when it is sent.
/// Bounded: once `capacity` templates exist, the next new one starts the set afresh.
struct MessageTemplates {
    /// What a template is, apart from its body.
    enum Kind: Hashable {
        case signal(path: String, interface: String, member: String)
        /// PropertiesChanged from `path`, keyed by a flat list rather than its body (see
        /// `emitPropertiesChanged`), so it can never meet a signal keyed by its own body.
        case propertiesChanged(path: String)
        /// A method return without a reply serial or destination; `Message.address(asReplyTo:)` adds them.
        case methodReturn

        /// By bytes, like the body (see `Key`): a member name that only looks like a kept one
        /// (U+212A KELVIN SIGN is canonically "K") must reach validation, not a copy.
        static func == (a: Kind, b: Kind) -> Bool {
            switch (a, b) {
            case (.signal(let p1, let i1, let m1), .signal(let p2, let i2, let m2)):
                return sameBytes(p1, p2) && sameBytes(i1, i2) && sameBytes(m1, m2)
            case (.propertiesChanged(let p1), .propertiesChanged(let p2)): return sameBytes(p1, p2)
            case (.methodReturn, .methodReturn): return true
            default: return false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case .signal(let path, _, let member):
                hasher.combine(path.utf8.count)
                hasher.combine(member.utf8.count)
            case .propertiesChanged(let path):
                hasher.combine(path.utf8.count)
            case .methodReturn:
                hasher.combine(0)
            }
        }
    }

    /// A message's identity on the wire: equal keys give byte-for-byte equal messages, so a
    /// double is compared by its bits (0.0 and -0.0 differ; a NaN matches the same NaN).
    struct Key: Hashable {
        let kind: Kind
        let body: [DBusValue]

        static func == (a: Key, b: Key) -> Bool {
            a.kind == b.kind && a.body.count == b.body.count && zip(a.body, b.body).allSatisfy { $0.isIdentical(to: $1) }
        }

        /// Cheap on purpose: strings count only by length (equality still compares them in full),
        /// because hashing every property name with SipHash cost more than the copy it saves.
        func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(body.count)
            for value in body { value.hashIdentity(into: &hasher) }
        }
    }

    static let capacity = 64
    private var built: [Key: Message] = [:]

    var count: Int { built.count }

    /// A fresh copy of the message for `key`; `build` makes the template the first time (and
    /// whatever it throws, e.g. InvalidArgs for a malformed body, is thrown here, uncached).
    mutating func copy(_ key: Key, build: () throws(MethodError) -> Message) throws(MethodError) -> Message {
        let template: Message
        if let found = built[key] {
            template = found
        } else {
            template = try build()
            if built.count >= Self.capacity { built.removeAll(keepingCapacity: true) }
            built[key] = template
        }
        guard let copy = dbus_message_copy(template.raw) else { outOfMemory("dbus_message_copy") }
        return Message(adopting: copy)
    }

    mutating func removeAll() { built.removeAll() }
}

extension DBusValue {
    /// Equality of what goes on the wire (see `MessageTemplates.Key`).
    func isIdentical(to other: DBusValue) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        // String's == is Unicode-canonical ("é" equals "e" + U+0301); the wire carries the bytes.
        case (.string(let a), .string(let b)), (.signature(let a), .signature(let b)): return sameBytes(a, b)
        case (.array(let e1, let a), .array(let e2, let b)): return sameBytes(e1, e2) && Self.identical(a, b)
        case (.structure(let a), .structure(let b)): return Self.identical(a, b)
        case (.variant(let a), .variant(let b)): return a.isIdentical(to: b)
        case (.dictEntry(let k1, let v1), .dictEntry(let k2, let v2)): return k1.isIdentical(to: k2) && v1.isIdentical(to: v2)
        default: return self == other  // scalars, ASCII object paths, or different cases
        }
    }

    func hashIdentity(into hasher: inout Hasher) {
        switch self {
        case .byte(let v): hasher.combine(v)
        case .boolean(let v): hasher.combine(v)
        case .int16(let v): hasher.combine(v)
        case .uint16(let v): hasher.combine(v)
        case .int32(let v): hasher.combine(v)
        case .uint32(let v): hasher.combine(v)
        case .int64(let v): hasher.combine(v)
        case .uint64(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v.bitPattern)
        case .string(let v), .signature(let v): hasher.combine(v.utf8.count)
        case .objectPath(let v): hasher.combine(v.rawValue.utf8.count)
        case .array(let element, let values):
            hasher.combine(element.utf8.count)
            hasher.combine(values.count)
            for value in values { value.hashIdentity(into: &hasher) }
        case .structure(let values):
            hasher.combine(values.count)
            for value in values { value.hashIdentity(into: &hasher) }
        case .variant(let inner): inner.hashIdentity(into: &hasher)
        case .dictEntry(let key, let value):
            key.hashIdentity(into: &hasher)
            value.hashIdentity(into: &hasher)
        }
    }

    private static func identical(_ a: [DBusValue], _ b: [DBusValue]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    }
}

/// Equal UTF-8 bytes (String's own == compares canonical equivalence instead). Through `withUTF8`,
/// which is free for native strings: `utf8.elementsEqual` cost 13k instructions per call (callgrind).
private func sameBytes(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}
