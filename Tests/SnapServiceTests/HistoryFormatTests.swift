import Testing
import SizeSelectorContract
@testable import SnapService

/// The history file's format and its failures, in process.
@Suite("History file format")
struct HistoryFormatTests {
    @Test("a file that cannot be written: said once, and the next failure is not repeated")
    func unwritable() {
        let file = HistoryFile(path: "/proc/self/no-such-folder/history")
        var history = History()
        history.record(from: 20, to: 40, cause: ChangeCause(.step), time: 1)
        #expect(file.write(history)?.contains("cannot write the history file") == true)
        history.record(from: 40, to: 60, cause: ChangeCause(.step), time: 2)
        #expect(file.write(history) == nil)
    }

    @Test("the format reads what it writes, replays appended lines by the rules, and leaves out a torn last line")
    func format() throws {
        var history = History()
        let who = ClientIdentity(uniqueName: ":1.4", pid: 42, command: "snapsizectl inc")
        history.record(from: 20, to: 40, cause: ChangeCause(.step, by: who), time: 10)
        history.record(from: 40, to: 60, cause: ChangeCause(.set), time: 11)
        var text = String(decoding: HistoryFile.snapshot(history), as: UTF8.self)
        #expect(HistoryFile.parse(text)?.0 == history)
        var replayed = history
        let undo = replayed.record(from: 60, to: 40, cause: ChangeCause(.undo, by: who), time: 12)
        text += "E " + HistoryFile.line(undo) + "\n"
        #expect(HistoryFile.parse(text)?.0 == replayed)
        #expect(HistoryFile.parse(text)?.0.canRedo == true)
        #expect(HistoryFile.parse(text + "E 4 13 40 6")?.0 == replayed, "a line cut short by a crash")
        #expect(HistoryFile.parse(text + "E 2 13 40 60 step 0 - \n") == nil, "a sequence that goes back")
        #expect(HistoryFile.parse("snapsize-history 2\n") == nil)
    }

    @Test("the bytes are those of the format: negative and large numbers, every kind, each client's part")
    func bytes() {
        var history = History()
        let who = ClientIdentity(uniqueName: ":1.4", pid: 42, command: "snapsizectl inc")
        history.record(from: 20, to: -40, cause: ChangeCause(.step, by: who), time: 1_764_000_000_123_456)
        history.record(from: -40, to: 60, cause: ChangeCause(.set, by: ClientIdentity(uniqueName: ":1.9", pid: 7, command: "")), time: 1)
        history.record(from: 60, to: 61, cause: ChangeCause(.reload), time: -5)
        history.record(from: 61, to: -40, cause: ChangeCause(.undo, by: who), time: Int64.max)
        let expected = """
            snapsize-history 1
            S 4
            U 20 -40
            R -40 60
            L 1 1764000000123456 20 -40 step 42 :1.4 snapsizectl inc
            L 2 1 -40 60 set 7 :1.9\u{20}
            L 3 -5 60 61 reload 0 -\u{20}
            L 4 9223372036854775807 61 -40 undo 42 :1.4 snapsizectl inc

            """
        #expect(String(decoding: HistoryFile.snapshot(history), as: UTF8.self) == expected)
        for (offset, kind) in ChangeKind.allCases.enumerated() {
            let entry = HistoryEntry(sequence: UInt64.max - UInt64(offset), time: Int64.min + 1, from: Int(Int32.min), to: 100 * offset,
                                     kind: kind, by: ClientIdentity(uniqueName: ":1.\(offset)", pid: UInt32.max, command: "a b"))
            #expect(HistoryFile.line(entry) == "\(UInt64.max - UInt64(offset)) -9223372036854775807 -2147483648 \(100 * offset) "
                    + "\(kind.rawValue) 4294967295 :1.\(offset) a b")
        }
    }

    @Test("a group's mark: what was recorded since it is taken back, on full stacks too, and the history goes on as before")
    func rewind() {
        var history = History()
        for index in 0..<150 { history.record(from: index, to: index + 1, cause: ChangeCause(.step), time: Int64(index)) }
        for index in 0..<3 { history.record(from: 150 - index, to: 149 - index, cause: ChangeCause(.undo), time: 200) }
        let before = history
        let mark = history.startMark()
        history.record(from: 147, to: 148, cause: ChangeCause(.redo), time: 300)
        // Beyond the stack's room: pushes overwrite its oldest moves.
        for index in 0..<20 { history.record(from: index, to: -index, cause: ChangeCause(.set), time: 400) }
        history.record(from: 0, to: 1, cause: ChangeCause(.undo), time: 500)
        #expect(history.undoable != before.undoable && history.redoable != before.redoable)
        history.rewind(to: mark)
        #expect(history.undoable == before.undoable && history.redoable == before.redoable)
        #expect(history.lastSequence == before.lastSequence)
        // The entries the group's pushed out stay out.
        #expect(history.entries == Array(before.entries.suffix(History.capacity - 22)))
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
