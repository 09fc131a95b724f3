import Foundation
import Testing
@_spi(Testing) import DBusKit
import SnapCore
@testable import SnapService
import TestSupport

/// Group commit: calls queued together are applied in order and saved once; nothing is answered
/// before the group is durable; a group whose save fails is undone.
@Suite("Group commit")
struct GroupCommitTests {
    @Test("commits in a group change the selection at once but are saved together, once, at the end")
    func savedOnce() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        let model = try ModelTests.model(saving: path)
        try model.perform { selection throws(SnapError) in try selection.set(index: 1) }  // sequence 1
        let recorder = ChangeRecorder(model) { model.committedIndex }
        model.beginGroup()
        for _ in 0..<3 { try model.perform { selection throws(SnapError) in try selection.step(by: 1).change } }
        #expect(model.committedIndex == 4)
        #expect(recorder.heard.map(\.seen) == [2, 3, 4], "each commit is announced in order")
        #expect(recorder.changes.allSatisfy { $0.facts.contains(.committedIndex) })
        #expect(savedSize(path) == 40, "nothing saved before the group ends")
        #expect(model.endGroup() == nil)
        #expect(savedSlots(path).compactMap { $0 }.map(\.sequence).max() == 2, "three commits, one write")
        #expect(savedSize(path) == 100)
    }

    @Test("a group whose save fails is undone: the selection goes back and the adapters hear it")
    func failedGroup() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "not a folder".write(toFile: folder + "/blocked", atomically: false, encoding: .utf8)
        let model = try ModelTests.model(saving: folder + "/blocked/state")
        let recorder = ChangeRecorder(model) { model.committedIndex }
        model.beginGroup()
        try model.perform { selection throws(SnapError) in try selection.step(by: 1).change }
        try model.perform { selection throws(SnapError) in try selection.step(by: 1).change }
        guard case .saveFailed(let problem)? = model.endGroup() else {
            Issue.record("the failed save was not reported")
            return
        }
        #expect(problem.contains("blocked"))
        #expect(model.committedIndex == 2)
        #expect(recorder.changes.last == ModelChange(SelectionChange(committed: 2, shown: 2)))
        #expect(recorder.heard.last?.seen == 2)
    }

    @Test("through the daemon: calls queued while it was stopped are answered in order, saved in fewer writes than calls")
    func daemon() throws {
        let fixture = try DaemonFixture(["--initial", "20"])
        guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(20)])  // creates the file
        let before = savedSlots(fixture.stateFile).compactMap { $0 }.map(\.sequence).max() ?? 0
        let caller = try Connection(address: fixture.bus.address)
        final class Replies { var items: [[DBusValue]] = [] }
        let replies = Replies()
        kill(pid, SIGSTOP)
        for _ in 0..<8 {
            try caller.callAsync(destination: busName, path: objectPath, interface: interfaceName, member: "Increment",
                                 arguments: [], timeoutMilliseconds: 20_000) { result in
                replies.items.append((try? result.get()) ?? [])
            }
        }
        caller.flush()
        usleep(500_000)  // lets the bus hand the calls over while the daemon cannot read them (not a timing assert)
        kill(pid, SIGCONT)
        let loop = EventLoop()
        loop.add(caller)
        #expect(waitUntil(timeout: 20) { loop.run(seconds: 0.05); return replies.items.count == 8 })
        let expected: [[DBusValue]] = (1...4).map { [.uint32(UInt32($0)), .int32(Int32(20 + 20 * $0)), .boolean(false)] }
            + Array(repeating: [.uint32(4), .int32(100), .boolean(true)], count: 4)
        #expect(replies.items == expected)
        #expect(savedSize(fixture.stateFile) == 100)
        let after = savedSlots(fixture.stateFile).compactMap { $0 }.map(\.sequence).max() ?? 0
        #expect(after - before < 4, "4 commits took \(after - before) writes")
        loop.remove(caller)
    }
}
