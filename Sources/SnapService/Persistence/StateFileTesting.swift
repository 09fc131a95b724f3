#if DEBUG
    import Glibc
    import SystemCalls

    // Readers and writers of the state file's bytes for the tests, in process and of the running daemon,
    // which break the file on purpose and read it back with the daemon's own decoder. Debug builds only
    // (SwiftPM defines DEBUG there), as SystemCalls' mocking: nothing of this is in the shipped daemon.

    /// What a state file on disk says: the size in the valid slot with the higher sequence number, nil
    /// when there is no file or no valid slot.
    func savedSize(_ path: String) -> Int? { StateStore.peek(path) }

    /// The slots of a state file, by slot number (nil for an invalid or empty one).
    func savedSlots(_ path: String) -> [StateSlots.Slot?] {
        let fd = POSIX.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return StateSlots.slots(in: []) }
        defer { _ = POSIX.close(fd) }
        return StateSlots.slots(in: POSIX.readAll(fd, limit: StateSlots.fileSize) ?? [])
    }

    /// Overwrites part of slot `number`'s record with garbage, as a torn write or a bad sector would.
    func damageSlot(_ path: String, _ number: Int) throws(StateFileTestError) {
        try overwrite(path, at: number * StateSlots.blockSize + 12, with: [0xde, 0xad, 0xbe, 0xef])
    }

    /// Writes `version` into slot `number`'s format version field (outside its checksum), as a newer
    /// snapsize would, or 0, as slots held before the field was named.
    func setSlotVersion(_ path: String, _ number: Int, _ version: UInt32) throws(StateFileTestError) {
        try overwrite(
            path, at: number * StateSlots.blockSize + StateSlots.versionOffset,
            with: (0..<4).map { UInt8(truncatingIfNeeded: version >> (8 * $0)) })
    }

    /// Slot `number`'s format version field as it is on disk.
    func slotVersion(_ path: String, _ number: Int) -> UInt32? {
        let fd = POSIX.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = POSIX.close(fd) }
        guard let bytes = POSIX.readAll(fd, limit: StateSlots.fileSize) else { return nil }
        let offset = number * StateSlots.blockSize + StateSlots.versionOffset
        guard bytes.count >= offset + 4 else { return nil }
        return (0..<4).reduce(UInt32(0)) { value, index in
            value | UInt32(bytes[offset + index]) << (8 * index)
        }
    }

    struct StateFileTestError: Error, CustomStringConvertible {
        let description: String
    }

    private func overwrite(_ path: String, at offset: Int, with bytes: [UInt8])
        throws(StateFileTestError)
    {
        let fd = POSIX.open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StateFileTestError(description: "cannot open \(path): \(POSIX.describe())")
        }
        defer { _ = POSIX.close(fd) }
        let written = bytes.withUnsafeBytes { POSIX.pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count, POSIX.fsync(fd) == 0 else {
            throw StateFileTestError(description: "cannot write \(path): \(POSIX.describe())")
        }
    }
#endif
