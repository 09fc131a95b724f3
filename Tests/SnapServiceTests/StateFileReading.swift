import Foundation
@_spi(Testing) @testable import SnapService

/// What a state file on disk says, read with the daemon's own decoder: the size in the valid slot
/// with the higher sequence number, nil when there is no file or no valid slot.
func savedSize(_ path: String) -> Int? { StateStore.peek(path) }

/// The slots of a state file, by slot number (nil for an invalid or empty one).
func savedSlots(_ path: String) -> [StateSlots.Slot?] {
    StateSlots.slots(in: Array(FileManager.default.contents(atPath: path) ?? Data()))
}

/// Overwrites part of slot `number`'s record with garbage, as a torn write or a bad sector would.
func damageSlot(_ path: String, _ number: Int) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(number * StateSlots.blockSize + 12))
    try handle.write(contentsOf: Data([0xde, 0xad, 0xbe, 0xef]))
    try handle.synchronize()
}

/// Writes `version` into slot `number`'s format version field (outside its checksum), as a newer
/// snapsize would, or 0, as slots held before the field was named.
func setSlotVersion(_ path: String, _ number: Int, _ version: UInt32) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(number * StateSlots.blockSize + StateSlots.versionOffset))
    try handle.write(contentsOf: Data((0..<4).map { UInt8(truncatingIfNeeded: version >> (8 * $0)) }))
    try handle.synchronize()
}

/// Slot `number`'s format version field as it is on disk.
func slotVersion(_ path: String, _ number: Int) -> UInt32? {
    guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
    let offset = number * StateSlots.blockSize + StateSlots.versionOffset
    guard bytes.count >= offset + 4 else { return nil }
    return (0..<4).reduce(UInt32(0)) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
}
