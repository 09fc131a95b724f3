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
/// Per send, the message's key is written into one buffer kept from send to send (`KeyWriter`: no
/// allocation) and looked up in a small open-addressing table by a hash of its words (no `Hasher`,
/// whose set-up and finalisation cost more than the hash itself); a key is copied only when kept.
struct MessageTemplates {
    /// A kept message's key: the bytes `KeyWriter` wrote for it.
    struct Key: Equatable {
        let bytes: [UInt8]
    }

    /// Writes a message's content as bytes: two keys are equal exactly when the two messages would
    /// be equal on the wire. Strings count by their UTF-8 bytes (String's own == is Unicode-canonical,
    /// so "é" would equal "e" + U+0301) and doubles by their bits (0.0 and -0.0 differ). Each kind
    /// starts with its own tag, so a PropertiesChanged key can never meet a plain signal's.
    ///
    /// Into one buffer that it owns and grows, kept from message to message: a number is one
    /// store and a string one copy. Every write first makes room (`reserve`), so no store reaches
    /// past `capacity`.
    final class KeyWriter {
        private var base: UnsafeMutableRawPointer
        private var capacity = 512
        private(set) var count = 0

        init() {
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }

        deinit { base.deallocate() }

        /// The bytes written, as a key to keep.
        var key: Key { Key(bytes: Array(UnsafeRawBufferPointer(start: base, count: count))) }

        /// Whether the bytes written are `key`'s.
        func matches(_ key: Key) -> Bool {
            key.bytes.count == count
                && key.bytes.withUnsafeBytes { count == 0 || memcmp($0.baseAddress!, base, count) == 0 }
        }

        /// FNV-1a over eight bytes at a time (then the rest), with a final mix so the low bits used
        /// as the table index depend on all of them. The keys are the daemon's own messages, a few
        /// dozen at most, so flooding is no concern; equal hashes are still compared byte for byte.
        var hash: UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var offset = 0
            while offset + 8 <= count {
                hash =
                    (hash ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    &* 0x0000_0100_0000_01b3
                offset += 8
            }
            while offset < count {
                hash =
                    (hash ^ UInt64(base.load(fromByteOffset: offset, as: UInt8.self)))
                    &* 0x0000_0100_0000_01b3
                offset += 1
            }
            return (hash ^ (hash >> 29)) &* 0xbf58_476d_1ce4_e5b9 ^ (hash >> 32)
        }

        func writeSignal(path: String, interface: String, member: String, body: [DBusValue]) {
            start(tag: 1)
            append(path)
            append(interface)
            append(member)
            append(body)
        }

        /// From its parts rather than a body of dict entries and variants (no boxes to build on every commit).
        func writePropertiesChanged(
            path: String, interface: String, changed: [(String, DBusValue)],
            invalidated: [String]
        ) {
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

        /// A method return, to `destination` or (nil) not addressed yet (`Message.address(to:)`).
        /// The body's encoding ends where it ends (counts and lengths), so the destination is the rest.
        func writeMethodReturn(body: [DBusValue], destination: UnsafePointer<CChar>?) {
            start(tag: destination == nil ? 3 : 4)
            append(body)
            if let destination {
                append(UnsafeRawBufferPointer(start: destination, count: strlen(destination)))
            }
        }

        private func start(tag: UInt8) {
            count = 0
            append(tag)
        }

        /// Makes room for `more` bytes after the `count` written.
        @inline(__always)
        private func reserve(_ more: Int) {
            if count + more > capacity { grow(to: count + more) }
        }

        @inline(never)
        private func grow(to needed: Int) {
            let grown = max(2 * capacity, needed)
            let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
            moved.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = moved
            capacity = grown
        }

        private func append<T: FixedWidthInteger>(_ number: T) {
            reserve(MemoryLayout<T>.size)
            base.storeBytes(of: number.littleEndian, toByteOffset: count, as: T.self)
            count += MemoryLayout<T>.size
        }

        private func append(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            reserve(bytes.count)
            (base + count).copyMemory(from: source, byteCount: bytes.count)
            count += bytes.count
        }

        private func append(_ body: [DBusValue]) {
            append(UInt32(truncatingIfNeeded: body.count))
            for value in body { append(value) }
        }

        private func append(_ string: String) {
            var string = string
            append(UInt32(truncatingIfNeeded: string.utf8.count))  // libdbus caps a message far below 32 bits of length
            string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }

        /// A tag per case, then the payload; containers carry their counts, so no two values meet.
        private func append(_ value: DBusValue) {
            switch value {
            case .byte(let v): append(UInt8(1)); append(v)
            case .boolean(let v): append(UInt8(2)); append(UInt8(v ? 1 : 0))
            case .int16(let v): append(UInt8(3)); append(v)
            case .uint16(let v): append(UInt8(4)); append(v)
            case .int32(let v): append(UInt8(5)); append(v)
            case .uint32(let v): append(UInt8(6)); append(v)
            case .int64(let v): append(UInt8(7)); append(v)
            case .uint64(let v): append(UInt8(8)); append(v)
            case .double(let v): append(UInt8(9)); append(v.bitPattern)
            case .string(let v): append(UInt8(10)); append(v)
            case .objectPath(let v): append(UInt8(11)); append(v.rawValue)
            case .signature(let v): append(UInt8(12)); append(v)
            case .array(let element, let values): append(UInt8(13)); append(element); append(values)
            case .structure(let values): append(UInt8(14)); append(values)
            case .variant(let inner): append(UInt8(15)); append(inner)
            case .dictEntry(let key, let inner): append(UInt8(16)); append(key); append(inner)
            case .unixFD(let v): append(UInt8(17)); append(v.descriptor)  // refused when built: never kept
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
    /// Made with the first message kept: a connection that never sends a signal or a reply (a
    /// one-call client, such as the process `snapsizectl inc` is) never makes the table.
    private var slots: [Entry?] = []
    private(set) var count = 0
    /// Writes the key of the message being sent, again for each one.
    private let writer = KeyWriter()

    /// A fresh copy of the message whose key `write` writes (into the buffer kept from send to send);
    /// `build` makes the template the first time (and whatever it throws, e.g. InvalidArgs for a
    /// malformed body, is thrown here, uncached).
    mutating func message(
        keyedBy write: (KeyWriter) -> Void,
        orBuild build: () throws(MethodError) -> Message
    ) throws(MethodError) -> Message {
        if slots.isEmpty { slots = Array(repeating: nil, count: Self.slotCount) }
        write(writer)
        let hash = writer.hash
        var slot = Int(truncatingIfNeeded: hash) & (Self.slotCount - 1)
        var found: Message?
        while let entry = slots[slot] {
            if entry.hash == hash && writer.matches(entry.key) {
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
            slots[slot] = Entry(hash: hash, key: writer.key, message: template)
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
