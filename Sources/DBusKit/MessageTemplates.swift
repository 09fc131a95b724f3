internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// Messages built once and copied for every send.
///
/// Writing a body with libdbus costs far more than its size suggests: each top-level argument
/// rewrites the header's SIGNATURE field, while `dbus_message_copy` of a built message is a
/// fraction of that. A selector sends the same few messages over and over (one per size), so each
/// distinct message is built once and copied for every send (the figures are in the README,
/// Performance).
///
/// A copy is a new, unsent message: libdbus gives it its own serial when it is sent.
/// Bounded: once `capacity` templates exist, the next new one starts the set afresh.
struct MessageTemplates {
    /// A message's content as bytes: two keys are equal exactly when the two messages would be
    /// equal on the wire. Strings count by their UTF-8 bytes (String's own == is Unicode-canonical,
    /// so "é" would equal "e" + U+0301) and doubles by their bits (0.0 and -0.0 differ). Each kind
    /// starts with its own tag, so a PropertiesChanged key can never meet a plain signal's.
    /// Flat bytes hash in one call and compare with one memcmp.
    struct Key: Hashable {
        private var bytes: [UInt8] = []

        /// A signal: its header fields and its body.
        static func signal(path: String, interface: String, member: String, body: [DBusValue]) -> Key {
            var key = Key(tag: 1)
            key.append(path)
            key.append(interface)
            key.append(member)
            key.append(body)
            return key
        }

        /// PropertiesChanged from `path`, from its parts rather than a body of dict entries and
        /// variants (no boxes to build on every commit).
        static func propertiesChanged(path: String, interface: String, changed: [(String, DBusValue)],
                                      invalidated: [String]) -> Key {
            var key = Key(tag: 2)
            key.append(path)
            key.append(interface)
            key.append(UInt32(truncatingIfNeeded: changed.count))
            for (name, value) in changed {
                key.append(name)
                key.append(value)
            }
            key.append(UInt32(truncatingIfNeeded: invalidated.count))
            for name in invalidated { key.append(name) }
            return key
        }

        /// A method return without a reply serial or destination; `Message.address(asReplyTo:)` adds them.
        static func methodReturn(body: [DBusValue]) -> Key {
            var key = Key(tag: 3)
            key.append(body)
            return key
        }

        private init(tag: UInt8) {
            bytes.reserveCapacity(128)
            bytes.append(tag)
        }

        static func == (a: Key, b: Key) -> Bool {
            a.bytes.count == b.bytes.count && a.bytes.withUnsafeBytes { x in
                b.bytes.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
            }
        }

        /// FNV-1a over the bytes, fed to the Hasher as one word: cheaper per byte than SipHash, and
        /// the keys are the daemon's own messages, a few dozen at most, so flooding is no concern.
        func hash(into hasher: inout Hasher) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            bytes.withUnsafeBufferPointer { buffer in
                for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            }
            hasher.combine(hash)
        }

        private mutating func append(_ body: [DBusValue]) {
            append(UInt32(truncatingIfNeeded: body.count))
            for value in body { append(value) }
        }

        /// Byte by byte: for four or eight bytes this is far cheaper than `append(contentsOf:)`.
        private mutating func append<T: FixedWidthInteger>(_ number: T) {
            var rest = number
            for _ in 0..<MemoryLayout<T>.size {
                bytes.append(UInt8(truncatingIfNeeded: rest))
                rest >>= 8
            }
        }

        private mutating func append(_ string: String) {
            append(UInt32(truncatingIfNeeded: string.utf8.count))  // libdbus caps a message at 128 MiB
            bytes.append(contentsOf: string.utf8)
        }

        /// A tag per case, then the payload; containers carry their counts, so no two values meet.
        private mutating func append(_ value: DBusValue) {
            switch value {
            case .byte(let v): bytes.append(1); append(v)
            case .boolean(let v): bytes.append(2); bytes.append(v ? 1 : 0)
            case .int16(let v): bytes.append(3); append(v)
            case .uint16(let v): bytes.append(4); append(v)
            case .int32(let v): bytes.append(5); append(v)
            case .uint32(let v): bytes.append(6); append(v)
            case .int64(let v): bytes.append(7); append(v)
            case .uint64(let v): bytes.append(8); append(v)
            case .double(let v): bytes.append(9); append(v.bitPattern)
            case .string(let v): bytes.append(10); append(v)
            case .objectPath(let v): bytes.append(11); append(v.rawValue)
            case .signature(let v): bytes.append(12); append(v)
            case .array(let element, let values): bytes.append(13); append(element); append(values)
            case .structure(let values): bytes.append(14); append(values)
            case .variant(let inner): bytes.append(15); append(inner)
            case .dictEntry(let key, let inner): bytes.append(16); append(key); append(inner)
            }
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
