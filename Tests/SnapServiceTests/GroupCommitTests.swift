import Foundation
import Testing
import SizeSelectorContract
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
        try model.perform(as: ChangeCause(.set)) { selection throws(SnapError) in
            try selection.set(index: 1)
        }  // sequence 1
        let recorder = ChangeRecorder(model) { model.committedIndex }
        model.beginGroup()
        for _ in 0..<3 {
            try model.perform(as: ChangeCause(.step)) { selection throws(SnapError) in
                try selection.step(by: 1).change
            }
        }
        #expect(model.committedIndex == 4)
        #expect(recorder.heard.map(\.seen) == [2, 3, 4], "each commit is announced in order")
        #expect(recorder.changes.allSatisfy { $0.facts.contains(.committedIndex) })
        #expect(savedSize(path) == 40, "nothing saved before the group ends")
        #expect(model.endGroup() == nil)
        #expect(
            savedSlots(path).compactMap { $0 }.map(\.sequence).max() == 2, "three commits, one write")
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
        try model.perform(as: ChangeCause(.step)) { selection throws(SnapError) in
            try selection.step(by: 1).change
        }
        try model.perform(as: ChangeCause(.step)) { selection throws(SnapError) in
            try selection.step(by: 1).change
        }
        guard case .saveFailed(let problem)? = model.endGroup() else {
            Issue.record("the failed save was not reported")
            return
        }
        #expect(problem.contains("blocked"))
        #expect(model.committedIndex == 2)
        var undone = ModelChange(SelectionChange(committed: 2, shown: 2))
        undone.insert([.lastChange, .canUndo])  // the group's entries go with it
        #expect(recorder.changes.last == undone)
        #expect(model.history.entries.isEmpty)
        #expect(recorder.heard.last?.seen == 2)
    }
}
