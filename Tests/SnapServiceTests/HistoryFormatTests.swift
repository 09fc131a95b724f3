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
}
