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
///
/// Per send, the message's key is written into one buffer kept from send to send (no allocation)
/// and looked up in a small open-addressing table by a hash of its words (no `Hasher`, whose
/// set-up and finalisation cost more than the hash itself); a key is copied only when it is kept.
struct MessageTemplates {
    /// A message's content as bytes: two keys are equal exactly when the two messages would be
    /// equal on the wire. Strings count by their UTF-8 bytes (String's own == is Unicode-canonical,
    /// so "é" would equal "e" + U+0301) and doubles by their bits (0.0 and -0.0 differ). Each kind
    /// starts with its own tag, so a PropertiesChanged key can never meet a plain signal's.
    /// Flat bytes hash in one pass and compare with one memcmp.
    struct Key: Equatable {
        fileprivate var bytes: [UInt8] = []

        /// A signal: its header fields and its body.
        static func signal(path: String, interface: String, member: String, body: [DBusValue]) -> Key {
            var key = Key()
            key.writeSignal(path: path, interface: interface, member: member, body: body)
            return key
        }

        /// PropertiesChanged from `path`, from its parts rather than a body of dict entries and
        /// variants (no boxes to build on every commit).
        static func propertiesChanged(path: String, interface: String, changed: [(String, DBusValue)],
                                      invalidated: [String]) -> Key {
            var key = Key()
            key.writePropertiesChanged(path: path, interface: interface, changed: changed, invalidated: invalidated)
            return key
        }

        /// A method return without a reply serial or destination; `Message.address(asReplyTo:)` adds them.
        static func methodReturn(body: [DBusValue]) -> Key {
            var key = Key()
            key.writeMethodReturn(body: body)
            return key
        }

        mutating func writeSignal(path: String, interface: String, member: String, body: [DBusValue]) {
            start(tag: 1)
            append(path)
            append(interface)
            append(member)
            append(body)
        }

        mutating func writePropertiesChanged(path: String, interface: String, changed: [(String, DBusValue)],
                                             invalidated: [String]) {
            start(tag: 2)
            append(path)
            append(interface)
            append(UInt32(truncatingIfNeeded: changed.count))
            for (name, value) in changed {
                append(name)
                append(value)
            }
            append(UInt32(truncatingIfNeeded: invalidated.count))
            for name in invalidated { append(name) }
        }

        mutating func writeMethodReturn(body: [DBusValue]) {
            start(tag: 3)
            append(body)
        }

        /// Empties the key for a new message, keeping its buffer.
        private mutating func start(tag: UInt8) {
            bytes.removeAll(keepingCapacity: true)
            bytes.reserveCapacity(256)
            bytes.append(tag)
        }

        static func == (a: Key, b: Key) -> Bool {
            a.bytes.count == b.bytes.count && a.bytes.withUnsafeBytes { x in
                b.bytes.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
            }
        }

        /// FNV-1a over eight bytes at a time (then the rest), with a final mix so the low bits used
        /// as the table index depend on all of them. The keys are the daemon's own messages, a few
        /// dozen at most, so flooding is no concern; equal hashes are still compared byte for byte.
        var hash: UInt64 {
            bytes.withUnsafeBytes { buffer in
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                var offset = 0
                while offset + 8 <= buffer.count {
                    hash = (hash ^ buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01b3
                    offset += 8
                }
                while offset < buffer.count {
                    hash = (hash ^ UInt64(buffer[offset])) &* 0x0000_0100_0000_01b3
                    offset += 1
                }
                return (hash ^ (hash >> 29)) &* 0xbf58_476d_1ce4_e5b9 ^ (hash >> 32)
            }
        }

        /// A copy with a buffer of its own, to keep while this one is written again.
        fileprivate var kept: Key {
            Key(bytes: bytes.withUnsafeBufferPointer { Array($0) })
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
            // One copy of the string's own bytes (a native string always has them), rather than
            // the byte-by-byte iteration `append(contentsOf: string.utf8)` becomes.
            if string.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: string.utf8)
            }
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

    private struct Entry {
        let hash: UInt64
        let key: Key
        let message: Message
    }

    static let capacity = 64
    /// Open addressing with linear probing, twice `capacity` slots: never more than half full.
    private static let slotCount = 2 * capacity
    private var slots: [Entry?] = Array(repeating: nil, count: slotCount)
    private(set) var count = 0
    /// The key of the message being sent, written again for each one.
    private var scratch = Key()

    /// A fresh copy of the message for `key`; `build` makes the template the first time (and
    /// whatever it throws, e.g. InvalidArgs for a malformed body, is thrown here, uncached).
    mutating func copy(_ key: Key, build: () throws(MethodError) -> Message) throws(MethodError) -> Message {
        try copy(writing: { $0 = key }, build: build)
    }

    /// The same, with the key written by `write` into the buffer kept from send to send.
    mutating func copy(writing write: (inout Key) -> Void,
                       build: () throws(MethodError) -> Message) throws(MethodError) -> Message {
        write(&scratch)
        let hash = scratch.hash
        var slot = Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)
        var found: Message?
        while let entry = slots[slot] {
            if entry.hash == hash && entry.key == scratch {
                found = entry.message
                break
            }
            slot = (slot + 1) & (Self.slotCount - 1)
        }
        let template: Message
        if let found {
            template = found
        } else {
            template = try build()
            if count >= Self.capacity {
                removeAll()
                slot = Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)
            }
            slots[slot] = Entry(hash: hash, key: scratch.kept, message: template)
            count += 1
        }
        guard let copy = dbus_message_copy(template.raw) else { outOfMemory("dbus_message_copy") }
        return Message(adopting: copy)
    }

    mutating func removeAll() {
        for slot in slots.indices { slots[slot] = nil }
        count = 0
    }
}
