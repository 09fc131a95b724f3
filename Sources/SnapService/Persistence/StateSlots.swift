/// The state file's format: two slots, each at the start of its own block (`blockSize`), each holding a
/// sequence number, the committed size, a checksum of both and the format version.
///
/// A commit writes only the older slot and flushes it (one `pwrite` + `fdatasync`, no rename, no
/// folder flush), so the newer slot, the last acknowledged size, is never touched while it is being
/// replaced. At start the valid slot with the higher sequence number wins; a slot torn by a crash
/// mid-write, or damaged later, fails its checksum and is ignored.
///
///     offset  bytes  field
///          0      8  "snapsize" (ASCII)
///          8      8  sequence number (UInt64, little-endian; 0 = never written; below 2^63 - 1)
///         16      8  size (Int64, little-endian)
///         24      4  CRC-32 (IEEE) of bytes 0..<24, little-endian
///         28      4  format version (UInt32, little-endian): 1 is this layout; 0 (what slots held
///                    before the field was named) is version 1 too
///
/// A later layout keeps the magic and this field where they are and raises the version, so that a
/// snapsize that only knows older versions refuses the file (kept aside, as a bad one is) rather
/// than read its bytes as this layout.
enum StateSlots {
    static let blockSize = 4096
    static let slotCount = 2
    static let fileSize = blockSize * slotCount
    static let recordSize = 32
    static let magic: [UInt8] = Array("snapsize".utf8)
    /// The format version this code writes, and the newest it reads.
    static let formatVersion: UInt32 = 1
    static let versionOffset = 28

    /// Beyond any sequence number a state file reaches (a commit a second: 290 billion years), so a
    /// slot at or past it was not written by snapsize, and the next commit's number cannot overflow.
    static let maximumSequence = UInt64(Int64.max)

    struct Slot: Equatable {
        var sequence: UInt64
        var size: Int
    }

    /// The record for `slot`, `recordSize` bytes.
    static func encode(_ slot: Slot) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(recordSize)
        appendLittleEndian(slot.sequence, to: &bytes)
        appendLittleEndian(UInt64(bitPattern: Int64(slot.size)), to: &bytes)
        appendLittleEndian(crc32(bytes), to: &bytes)
        appendLittleEndian(formatVersion, to: &bytes)
        return bytes
    }

    /// The slot in `record` (at least `recordSize` bytes), or nil when it is torn, damaged, empty or
    /// of a newer format version.
    static func decode(_ record: ArraySlice<UInt8>) -> Slot? {
        guard record.count >= recordSize else { return nil }
        guard let version = version(of: record), version <= formatVersion else { return nil }
        let start = record.startIndex
        let stored = UInt32(truncatingIfNeeded: littleEndian(record, at: start + 24, count: 4))
        guard stored == crc32(record[start..<start + 24]) else { return nil }
        let sequence = littleEndian(record, at: start + 8, count: 8)
        guard sequence > 0, sequence < maximumSequence else { return nil }
        return Slot(
            sequence: sequence,
            size: Int(Int64(bitPattern: littleEndian(record, at: start + 16, count: 8))))
    }

    /// Both slots of a whole file's bytes (nil for each that is not valid), by slot number.
    static func slots(in file: [UInt8]) -> [Slot?] {
        (0..<slotCount).map { number in
            let offset = number * blockSize
            return file.count >= offset + recordSize ? decode(file[offset..<offset + recordSize]) : nil
        }
    }

    /// The format version of `record`, nil when it does not start with the magic (0 reads as 1).
    static func version(of record: ArraySlice<UInt8>) -> UInt32? {
        let start = record.startIndex
        guard record.count >= recordSize, record[start..<start + 8].elementsEqual(magic) else {
            return nil
        }
        return max(
            1, UInt32(truncatingIfNeeded: littleEndian(record, at: start + versionOffset, count: 4)))
    }

    /// The newest format version among `file`'s slots when it is newer than `formatVersion` (a
    /// later snapsize wrote the file), else nil.
    static func newerVersion(in file: [UInt8]) -> UInt32? {
        let versions = (0..<slotCount).compactMap { number -> UInt32? in
            let offset = number * blockSize
            return file.count >= offset + recordSize
                ? version(of: file[offset..<offset + recordSize]) : nil
        }
        return versions.max().flatMap { $0 > formatVersion ? $0 : nil }
    }

    /// Whether `file` looks like this format at all (either block starts with the magic), as
    /// opposed to the old one-line text format.
    static func hasMagic(_ file: [UInt8]) -> Bool {
        (0..<slotCount).contains { number in
            let offset = number * blockSize
            return file.count >= offset + magic.count
                && file[offset..<offset + magic.count].elementsEqual(magic)
        }
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        var rest = value
        for _ in 0..<MemoryLayout<T>.size {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>, at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    /// CRC-32 (IEEE 802.3, reflected, as zlib's crc32()).
    static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
