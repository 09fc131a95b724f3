import Foundation
import Testing
import SizeSelectorContract
@testable import SnapService
import TestSupport

/// The history file's format and its failures, in process.
@Suite("History file format")
struct HistoryFormatTests {
    private let who = ClientIdentity(uniqueName: ":1.4", pid: 42, command: "snapsizectl inc")

    /// `bytes` as hex, eight bytes to a group: what the pinned bytes below are written as.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.enumerated().map {
            ($0.offset > 0 && $0.offset % 8 == 0 ? " " : "") + String(format: "%02x", $0.element)
        }.joined()
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(digits[$0...$0 + 1]), radix: 16)!
        }
    }

    @Test("a file that cannot be written: said once, and the next failure is not repeated")
    func unwritable() {
        let file = HistoryFile(path: "/proc/self/no-such-folder/history")
        var history = History()
        history.record(from: 20, to: 40, cause: ChangeCause(.step), time: 1)
        #expect(file.write(history)?.contains("cannot write the history file") == true)
        history.record(from: 40, to: 60, cause: ChangeCause(.step), time: 2)
        #expect(file.write(history) == nil)
    }

    @Test(
        "the format reads what it writes, replays appended records by the rules, and leaves out a torn last one"
    )
    func format() throws {
        var history = History()
        history.record(from: 20, to: 40, cause: ChangeCause(.step, by: who), time: 10)
        history.record(from: 40, to: 60, cause: ChangeCause(.set), time: 11)
        var bytes = HistoryFile.snapshot(history)
        #expect(HistoryFile.parse(bytes) == history)
        var replayed = history
        replayed.record(from: 60, to: 40, cause: ChangeCause(.undo, by: who), time: 12)
        var record: [UInt8] = []
        replayed.forEachRecord(after: history.lastSequence) {
            HistoryFile.append(UInt8(ascii: "E"), $0, to: &record)
        }
        bytes += record
        #expect(HistoryFile.parse(bytes) == replayed)
        #expect(HistoryFile.parse(bytes)?.canRedo == true)
        for cut in 1..<record.count {
            #expect(
                HistoryFile.parse(Array(bytes.dropLast(cut))) == history,
                "a record cut short by a crash, \(cut) bytes")
        }
        #expect(HistoryFile.parse(bytes + record) == nil, "a sequence that does not go on")
        var unnamed = record
        unnamed[2] = 9
        #expect(HistoryFile.parse(HistoryFile.snapshot(history) + unnamed) == nil, "a client no W named")
        var unknownKind = record
        unknownKind[1] = 7
        #expect(HistoryFile.parse(HistoryFile.snapshot(history) + unknownKind) == nil)
        #expect(HistoryFile.parse(Array("snapsize-history 3\n".utf8)) == nil)
        #expect(
            HistoryFile.parse(Array("snapsize-history 2\nX".utf8) + Array(repeating: 0, count: 39))
                == nil)
        #expect(HistoryFile.parse(HistoryFile.header) == History())
        // A client's W cut short, after the record that needed it was never written.
        var client: [UInt8] = []
        HistoryFile.append(
            slot: 1, ClientIdentity(uniqueName: ":1.8", pid: 8, command: "a"), to: &client)
        for cut in 1..<client.count {
            #expect(HistoryFile.parse(HistoryFile.snapshot(history) + client.dropLast(cut)) == history)
        }
    }

    @Test(
        "numbering that could not go on is refused, in either version: the next change would overflow it"
    )
    func sequenceBound() throws {
        var history = History()
        history.record(from: 20, to: 40, cause: ChangeCause(.step, by: who), time: 10)
        let snapshot = HistoryFile.snapshot(history)
        /// The snapshot with its S record's sequence (the 8 bytes after the tag's 8) set to `sequence`.
        func starting(at sequence: UInt64) -> [UInt8] {
            var bytes = snapshot
            let at = HistoryFile.header.count + 8
            withUnsafeBytes(of: sequence.littleEndian) { bytes.replaceSubrange(at..<at + 8, with: $0) }
            return bytes
        }
        #expect(HistoryFile.parse(starting(at: UInt64.max)) == nil)
        #expect(HistoryFile.parse(starting(at: HistoryFile.maximumSequence)) == nil)
        var record: [UInt8] = []
        HistoryFile.append(
            UInt8(ascii: "E"),
            History.Record(sequence: UInt64.max, time: 11, from: 40, to: 60, kind: .step, client: 0),
            to: &record)
        #expect(HistoryFile.parse(snapshot + record) == nil, "an appended record")
        #expect(
            HistoryFile.parse(Array("snapsize-history 1\nS 18446744073709551615\n".utf8)) == nil,
            "version 1")
        // Just under the bound: read, and the numbering goes on.
        var high = try #require(HistoryFile.parse(starting(at: HistoryFile.maximumSequence - 1)))
        high.record(from: 40, to: 60, cause: ChangeCause(.step, by: who), time: 12)
        #expect(high.lastSequence == HistoryFile.maximumSequence && high.entries.last?.to == 60)
    }

    /// Four changes by two clients and a reload: a snapshot's every byte.
    private var pinned: History {
        var history = History()
        history.record(
            from: 20, to: -40, cause: ChangeCause(.step, by: who), time: 1_764_000_000_123_456)
        history.record(
            from: -40, to: 60,
            cause: ChangeCause(.set, by: ClientIdentity(uniqueName: ":1.9", pid: 7, command: "")),
            time: 1)
        history.record(from: 60, to: 61, cause: ChangeCause(.reload), time: -5)
        history.record(from: 61, to: -40, cause: ChangeCause(.undo, by: who), time: Int64.max)
        return history
    }

    @Test(
        "the bytes are those of the format: little-endian fields, negative and large numbers, every kind, each client once"
    )
    func bytes() {
        let expected = Self.bytes(
            """
            736e617073697a65 2d686973746f7279 20320a
            5300000000000000 0400000000000000
            5500000000000000 1400000000000000 d8ffffffffffffff
            5200000000000000 d8ffffffffffffff 3c00000000000000
            570000002a000000 040000000f000000 3a312e34 736e617073697a6563746c20696e63
            5700010007000000 0400000000000000 3a312e39
            5700020000000000 0000000000000000
            4c00000000000000 0100000000000000 4022644159440600 1400000000000000 d8ffffffffffffff
            4c01010000000000 0200000000000000 0100000000000000 d8ffffffffffffff 3c00000000000000
            4c06020000000000 0300000000000000 fbffffffffffffff 3c00000000000000 3d00000000000000
            4c04000000000000 0400000000000000 ffffffffffffff7f 3d00000000000000 d8ffffffffffffff
            """)
        let snapshot = HistoryFile.snapshot(pinned)
        #expect(Self.hex(snapshot) == Self.hex(expected))
        #expect(HistoryFile.parse(snapshot) == pinned)
        // Every kind's byte, pinned by name (not by the cases' order, which may change), and the
        // extremes of each field; each record reads back as the kind it was written as.
        let kindBytes: [(ChangeKind, Int)] = [
            (.step, 0), (.set, 1), (.commit, 2), (.accessible, 3), (.undo, 4), (.redo, 5),
            (.reload, 6)
        ]
        #expect(Set(kindBytes.map(\.0)) == Set(ChangeKind.allCases), "every kind has its pinned byte")
        for (kind, offset) in kindBytes {
            let record = History.Record(
                sequence: UInt64.max - UInt64(offset), time: Int64.min + 1, from: Int(Int32.min),
                to: 10 * offset, kind: kind, client: 0x1234)
            var bytes: [UInt8] = []
            HistoryFile.append(UInt8(ascii: "E"), record, to: &bytes)
            let to = String(format: "%02x", 10 * offset)
            #expect(
                Self.hex(bytes)
                    == "450\(offset)341200000000 \(String(format: "%02x", 255 - offset))ffffffffffffff 0100000000000080 "
                    + "00000080ffffffff \(to)00000000000000", "\(kind)")
            var history = History()
            history.record(from: 20, to: 40, cause: ChangeCause(kind), time: 1)
            var file = HistoryFile.snapshot(history)
            #expect(HistoryFile.parse(file) == history, "\(kind) reads back as written")
            // The last record is the entry's `L`: a byte no kind has is refused.
            #expect(file[file.count - 40] == UInt8(ascii: "L"))
            file[file.count - 39] = UInt8(kindBytes.count)
            #expect(HistoryFile.parse(file) == nil, "kind byte \(kindBytes.count) is no kind")
        }
    }

    @Test("a file of version 1 (text) is read as it was written")
    func versionOne() throws {
        let text = """
            snapsize-history 1
            S 4
            U 20 -40
            R -40 60
            L 1 1764000000123456 20 -40 step 42 :1.4 snapsizectl inc
            L 2 1 -40 60 set 7 :1.9\u{20}
            L 3 -5 60 61 reload 0 -\u{20}
            L 4 9223372036854775807 61 -40 undo 42 :1.4 snapsizectl inc

            """
        #expect(HistoryFile.parse(Array(text.utf8)) == pinned)
        var more = pinned
        more.record(from: -40, to: 61, cause: ChangeCause(.redo, by: who), time: 9)
        #expect(
            HistoryFile.parse(Array((text + "E 5 9 -40 61 redo 42 :1.4 snapsizectl inc\nE 6 1").utf8))
                == more)
        #expect(HistoryFile.parse(Array((text + "X what is this\n").utf8)) == nil)

        // Loaded, it is written as version 2 at the next write, the same history.
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try text.write(toFile: folder + "/history", atomically: false, encoding: .utf8)
        let file = HistoryFile(path: folder + "/history")
        var loaded = file.load()
        #expect(loaded.problem == nil && loaded.history == pinned)
        loaded.history.record(from: -40, to: 61, cause: ChangeCause(.redo, by: who), time: 9)
        #expect(file.write(loaded.history) == nil)
        let written = try #require(FileManager.default.contents(atPath: folder + "/history"))
        #expect(written.starts(with: HistoryFile.header))
        #expect(HistoryFile(path: folder + "/history").load().history == more)
    }

    @Test(
        "written change by change, by many clients, some of them learned later: the file reads back as the history"
    )
    func clients() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = HistoryFile(path: folder + "/history")
        var history = History()
        for n in 0..<700 {
            // Mostly one client's runs, a new client now and then (each snapsizectl run is one), and
            // its process known only after its change was recorded, as the bus answers.
            let name = ":1.\(n / 7)"
            let cause = ChangeCause(
                n % 5 == 4 ? .undo : .step, by: ClientIdentity(uniqueName: name, pid: 0, command: ""))
            history.record(from: n, to: n + 1, cause: cause, time: Int64(n))
            if n % 7 == 3 {
                let learned = history.learned(
                    ClientIdentity(uniqueName: name, pid: UInt32(n), command: "snapsizectl inc"))
                #expect(learned)
            }
            if n % 3 == 0 || n % 7 == 3 { #expect(file.write(history) == nil) }
            if n % 50 == 49 {
                #expect(file.write(history) == nil)
                #expect(
                    HistoryFile(path: folder + "/history").load().history == history,
                    "after \(n + 1) changes")
            }
        }
        #expect(history.clients.count <= History.capacity + 1, "a slot no entry names is taken again")
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: folder + "/history")[.size] as? Int)
        #expect(size < 64 * 1024, "\(size)")
    }

    @Test(
        "a group's mark: what was recorded since it is taken back, on full stacks too, and the history goes on as before"
    )
    func rewind() {
        var history = History()
        for index in 0..<150 {
            history.record(from: index, to: index + 1, cause: ChangeCause(.step), time: Int64(index))
        }
        for index in 0..<3 {
            history.record(from: 150 - index, to: 149 - index, cause: ChangeCause(.undo), time: 200)
        }
        let before = history
        let mark = history.startMark()
        history.record(from: 147, to: 148, cause: ChangeCause(.redo, by: who), time: 300)
        // Beyond the stack's room and round its ring: pushes overwrite its oldest moves, then the ones
        // it held when the mark was taken.
        for index in 0..<40 {
            history.record(from: index, to: -index, cause: ChangeCause(.set), time: 400)
        }
        history.record(from: 0, to: 1, cause: ChangeCause(.undo), time: 500)
        #expect(history.undoable != before.undoable && history.redoable != before.redoable)
        history.rewind(to: mark)
        #expect(history.undoable == before.undoable && history.redoable == before.redoable)
        #expect(history.lastSequence == before.lastSequence)
        // The entries the group's pushed out stay out.
        #expect(history.entries == Array(before.entries.suffix(History.capacity - 42)))
        // Without a mark, nothing is kept for one: the next group starts afresh.
        var again = history
        let second = again.startMark()
        again.record(from: 1, to: 2, cause: ChangeCause(.step), time: 600)
        again.endMark()
        again.record(from: 2, to: 3, cause: ChangeCause(.step), time: 700)
        var expected = history
        expected.record(from: 1, to: 2, cause: ChangeCause(.step), time: 600)
        expected.record(from: 2, to: 3, cause: ChangeCause(.step), time: 700)
        #expect(again == expected)
        _ = second
    }
}
