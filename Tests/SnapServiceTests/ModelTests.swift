import Foundation
import Testing
import SizeSelectorContract
import SnapCore
@testable import SnapService
import TestSupport

/// SelectionModel in process, with a real StateStore in a temporary folder: what the daemon's
/// durability promise rests on.
@Suite("SelectionModel in process")
struct ModelTests {
    /// Standard sizes (20...100), committed at 60, saving to `folder/state`.
    static func model(saving path: String?) throws -> SelectionModel {
        SelectionModel(
            selection: try Selection(committed: 2),
            store: path.map(StateStore.init(path:)))
    }

    static func saved(_ path: String) -> Int? { savedSize(path) }

    @Test("a commit is on disk before any adapter hears of it")
    func savesBeforeNotifying() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        let model = try Self.model(saving: path)
        let recorder = ChangeRecorder(model) { Self.saved(path) }
        try model.perform(as: ChangeCause(.set)) { selection throws(SnapError) in
            try selection.set(index: 4)
        }
        let seen = recorder.heard
        #expect(seen.count == 1)
        #expect(
            seen.first?.change
                == ModelChange([
                    .committedIndex, .committedSize, .shownIndex, .shownSize, .valueText,
                    .lastChange, .canUndo
                ]))
        #expect(
            seen.first?.seen == 100,
            "what an adapter found on disk: \(String(describing: seen.first?.seen))")
        #expect(model.committedSize == 100)
    }

    @Test("a preview is never saved; the commit that ends it is")
    func previewNotSaved() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        let model = try Self.model(saving: path)
        let owner = PreviewOwner(":1.7")
        try model.preview(x: 12, by: owner)
        #expect(Self.saved(path) == nil)
        #expect(model.shownSize == 20 && model.committedSize == 60)
        try model.perform(as: ChangeCause(.commit)) { selection throws(SnapError) in
            try selection.commit(x: 12, by: owner)
        }
        #expect(Self.saved(path) == 20)
    }

    @Test("a refused transition changes nothing and notifies nobody")
    func refused() throws {
        let model = try Self.model(saving: nil)
        try model.preview(x: 12, by: PreviewOwner(":1.1"))
        let recorder = ChangeRecorder(model)
        #expect(throws: ModelError.refused(.previewActive(owner: PreviewOwner(":1.1")))) {
            try model.perform(as: ChangeCause(.step)) { selection throws(SnapError) in
                try selection.step(by: 1).change
            }
        }
        #expect(recorder.changes.isEmpty)
        #expect(model.committedSize == 60 && model.shownSize == 20)
    }

    @Test("every accepted Preview is a move for the preview guard, even one that changes nothing")
    func previewMoves() throws {
        let model = try Self.model(saving: nil)
        let recorder = ChangeRecorder(model)
        let owner = PreviewOwner(":1.2")
        try model.preview(x: 12, by: owner)
        try model.preview(x: 13, by: owner)  // the same index: no change, still a move
        #expect(throws: ModelError.self) { try model.preview(x: 12, by: PreviewOwner(":1.3")) }
        #expect(
            recorder.changes == [
                ModelChange(SelectionChange(shown: 0, previewing: true), previewTouchedBy: owner),
                ModelChange([], previewTouchedBy: owner)
            ])
        #expect(recorder.changes.map(\.previewToucher) == [owner, owner])
    }
}
