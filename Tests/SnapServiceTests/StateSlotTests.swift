import Foundation
import Testing
import DBusKit
import TestSupport
@testable import SnapService

/// The two-slot state file: one write per commit, the newer valid slot wins, a torn or damaged
/// slot is ignored, a file with no valid slot is kept aside, the old format is migrated once.
@Suite("State file slots")
struct StateSlotTests {
    /// A fresh folder for one test's state file.
    private static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "snapsize-slots-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `folder/state` after a fresh store committed `sizes` in order (the first one creates the file).
    private static func committed(_ sizes: [Int], in folder: String) -> String {
        let path = folder + "/state"
        let store = StateStore(path: path)
        _ = store.load()
        for size in sizes { #expect(store.save(size: size) == nil) }
        return path
    }

    @Test("commits alternate between the slots, and a new store takes the newer one")
    func alternate() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        let store = StateStore(path: path)
        #expect(store.load() == .missing)
        for size in [40, 60, 80] { #expect(store.save(size: size) == nil) }
        #expect(
            savedSlots(path) == [
                StateSlots.Slot(sequence: 3, size: 80), StateSlots.Slot(sequence: 2, size: 60)
            ])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.size] as? Int == StateSlots.fileSize)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(StateStore(path: path).load() == .size(80))
    }

    @Test(
        "a slot whose numbering could not go on is ignored: no snapsize wrote it, and the next commit would overflow it"
    )
    func sequenceBound() {
        for sequence in [UInt64.max, StateSlots.maximumSequence] {
            #expect(
                StateSlots.decode(StateSlots.encode(StateSlots.Slot(sequence: sequence, size: 60))[...])
                    == nil, "\(sequence)")
        }
        let highest = StateSlots.Slot(sequence: StateSlots.maximumSequence - 1, size: 60)
        #expect(StateSlots.decode(StateSlots.encode(highest)[...]) == highest)
    }

    @Test(
        "a torn slot (the write in flight) is ignored: the other holds the last acknowledged size, and is kept"
    )
    func tornOlderSlot() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = Self.committed([40, 60], in: folder)  // slot 0, then slot 1: acknowledged
        try damageSlot(path, 0)  // the next commit, torn by a crash
        let restarted = StateStore(path: path)
        #expect(restarted.load() == .size(60))
        // The next commit goes to the torn slot, never over the one that holds the saved size.
        #expect(restarted.save(size: 100) == nil)
        #expect(
            savedSlots(path) == [
                StateSlots.Slot(sequence: 3, size: 100), StateSlots.Slot(sequence: 2, size: 60)
            ])
        #expect(StateStore(path: path).load() == .size(100))
    }

    @Test("a damaged newer slot: the older one is used")
    func damagedNewerSlot() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = Self.committed([40, 60], in: folder)
        try damageSlot(path, 1)
        #expect(StateStore(path: path).load() == .size(40))
    }

    @Test("both slots damaged: the file is kept aside and a new one is made on the next commit")
    func bothSlotsDamaged() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = Self.committed([40, 60], in: folder)
        try damageSlot(path, 0)
        try damageSlot(path, 1)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let restarted = StateStore(path: path)
        guard case .unusable(let reason, let movedTo?) = restarted.load() else {
            Issue.record("a file without a valid slot was used")
            return
        }
        #expect(reason.contains("slots"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: movedTo)) == damaged,
            "the bad file was not kept as it was")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(restarted.save(size: 80) == nil)
        #expect(StateStore(path: path).load() == .size(80))
    }

    @Test(
        "a file written before the format version was named (zero there) loads as version 1; commits write 1"
    )
    func versionZero() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = Self.committed([40, 60], in: folder)
        #expect(
            slotVersion(path, 0) == StateSlots.formatVersion
                && slotVersion(path, 1) == StateSlots.formatVersion)
        for number in 0..<2 { try setSlotVersion(path, number, 0) }
        let store = StateStore(path: path)
        #expect(store.load() == .size(60))
        #expect(store.save(size: 80) == nil)
        #expect(
            slotVersion(path, 0) == 1 && slotVersion(path, 1) == 0,
            "the commit went to slot 0, in version 1")
        #expect(StateStore(path: path).load() == .size(80))
    }

    @Test(
        "a file in a newer format version is refused and kept aside as it was, never read as this one",
        arguments: [0, 1])
    func newerVersion(slot: Int) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = Self.committed([40, 60], in: folder)
        // Either slot: a newer snapsize wrote it (its checksum still holds), so the other slot, in
        // this version, is no longer the saved size either.
        try setSlotVersion(path, slot, StateSlots.formatVersion + 1)
        let newer = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(savedSize(path) == nil)
        let store = StateStore(path: path)
        guard case .unusable(let reason, let movedTo?) = store.load() else {
            Issue.record("a file in a newer format version was used")
            return
        }
        #expect(reason.contains("version 2"), "\(reason)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: movedTo)) == newer,
            "the file was not kept as it was")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(store.save(size: 80) == nil)
        #expect(StateStore(path: path).load() == .size(80))
    }

    @Test(
        "a state file removed, or replaced by a folder, while the store holds it open: never written to a lost file"
    )
    func replacedWhileOpen() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(path: folder + "/state")
        let path = Self.committed([], in: folder)
        _ = store.load()
        #expect(store.save(size: 40) == nil)
        try FileManager.default.removeItem(atPath: path)
        #expect(store.save(size: 60) == nil)
        #expect(savedSize(path) == 60, "the commit went to the removed file")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(store.save(size: 80) != nil, "a commit that cannot reach the state file is refused")
    }

    @Test("the old one-line format is read once and rewritten as slots")
    func migrate() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        try "size=57\n".write(toFile: path, atomically: true, encoding: .utf8)
        let store = StateStore(path: path)
        #expect(store.load() == .size(57))
        #expect(savedSlots(path) == [StateSlots.Slot(sequence: 1, size: 57), nil])
        #expect(store.save(size: 60) == nil)
        #expect(StateStore(path: path).load() == .size(60))
    }

    @Test("a symbolic link is never followed, not even to a valid state file")
    func symlink() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state", target = folder + "/elsewhere"
        let original = StateStore(path: target)
        _ = original.load()
        #expect(original.save(size: 20) == nil)
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let store = StateStore(path: path)
        guard case .unusable = store.load() else {
            Issue.record("a symbolic link was followed")
            return
        }
        #expect(store.save(size: 100) == nil)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: target)) == before, "the link's target was touched"
        )
        #expect(savedSize(path) == 100)
    }
}
