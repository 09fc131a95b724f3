import Foundation
import Testing
import SizeSelectorContract
import SnapCore
@testable import SnapService
import SystemCalls
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// `SelectionModel.setSnapper` (a reload's new list, track or layout) in process, with a real
/// StateStore in a temporary folder, failing on demand through the SystemCalls seam.
@Suite("SelectionModel: a new list in process")
struct ReloadModelTests {
    /// Standard sizes (20...100) committed at 60, saved to `folder/state`, recording what the
    /// adapters hear and what was on disk when they heard it.
    final class Recorded {
        let folder = try! makeTemporaryDirectory()
        var state: String { folder + "/state" }
        let model: SelectionModel
        let recorder: ChangeRecorder<Int?>
        var changes: [ModelChange] { recorder.changes }

        init() throws {
            let store = StateStore(path: folder + "/state")
            #expect(store.save(size: 60) == nil)
            model = SelectionModel(selection: try Selection(committed: 2), store: store)
            let state = folder + "/state"
            recorder = ChangeRecorder(model) { savedSize(state) }
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    static let newList = Snapper(sizes: try! SizeSet([10, 30, 50, 70]), track: try! Track(width: 200))
    static let reload = ChangeCause(.reload)

    @Test(
        "the committed size maps to the core's nearest size, is saved before anyone hears, and one notification says what changed"
    )
    func mapsAndSaves() throws {
        let recorded = try Recorded()
        let model = recorded.model
        let expected = Self.newList.sizes.index(nearestTo: 60)  // the core's rule
        #expect(Self.newList.sizes[expected] == 70)
        let change = try model.setSnapper(Self.newList, as: Self.reload)
        #expect(model.committedIndex == expected && model.committedSize == 70 && model.shownSize == 70)
        #expect(model.sizes.sizes == [10, 30, 50, 70] && model.snapper.track.width == 200)
        #expect(
            model.valueTexts == ["10 points", "30 points", "50 points", "70 points"]
                && model.valueText == "70 points")
        let all = ModelChange([
            .sizes, .trackWidth, .valueTexts, .committedIndex, .committedSize, .shownIndex, .shownSize,
            .valueText, .lastChange
        ])
        #expect(change == all)
        #expect(
            model.history.last.kind == .reload && model.history.last.by == .unknown
                && !model.history.canUndo)
        #expect(recorded.changes == [all], "no preview was open: no other change")
        #expect(recorded.recorder.heard.first?.seen == 70, "on disk when the adapter heard of it")
        #expect(
            try model.setSnapper(Self.newList, as: Self.reload) == nil,
            "the same list again changes nothing")
        #expect(recorded.changes.count == 1)
    }

    @Test("a size still allowed stays (its index may move); a new track alone saves nothing")
    func sizeKept() throws {
        let recorded = try Recorded()
        let model = recorded.model
        let change = try model.setSnapper(
            Snapper(sizes: try SizeSet([10, 20, 40, 60, 100])), as: Self.reload)
        #expect(model.committedSize == 60 && model.committedIndex == 3)
        #expect(
            change?.facts == [.sizes, .valueTexts, .committedIndex, .shownIndex],
            "\(String(describing: change))")
        let track = try model.setSnapper(
            Snapper(
                sizes: try SizeSet([10, 20, 40, 60, 100]), track: try Track(width: 400, inset: 20),
                layout: .numeric), as: Self.reload)
        #expect(track == ModelChange([.trackWidth, .trackInset, .layout]))
        #expect(savedSize(recorded.state) == 60)
    }

    @Test("an open preview ends as a cancel does, before the new list is announced")
    func previewCancelled() throws {
        let recorded = try Recorded()
        let model = recorded.model
        try model.preview(x: 324, by: PreviewOwner(":1.9"))  // shows 100
        try model.setSnapper(Self.newList, as: Self.reload)
        #expect(!model.isPreviewing && model.shownSize == 70)
        #expect(
            recorded.changes.prefix(2) == [
                ModelChange(
                    SelectionChange(shown: 4, previewing: true), previewTouchedBy: PreviewOwner(":1.9")),
                ModelChange(SelectionChange(shown: 2, previewing: false))
            ])
        #expect(recorded.changes.count == 3 && recorded.changes.last?.facts.contains(.sizes) == true)
        #expect(
            recorded.recorder.heard[1].seen == 70,
            "the new size was saved before even the cancel was heard")
    }

    @Test(
        "a failed save refuses the new list: the list, the size, the preview and the disk stay, nobody hears"
    )
    func failedSave() throws {
        let recorded = try Recorded()
        let model = recorded.model
        try model.preview(x: 324, by: PreviewOwner(":1.9"))
        let before = model.selection, heard = recorded.changes.count
        let mock = MockedCalls()
        mock.fail(.fdatasync, with: EIO)
        let result = withMockedCalls(mock) {
            Result { () throws(ModelError) in try model.setSnapper(Self.newList, as: Self.reload) }
        }
        guard case .failure(.saveFailed(let problem)) = result else {
            Issue.record("expected saveFailed, got \(result)")
            return
        }
        #expect(problem.contains(String(cString: strerror(EIO))))
        #expect(model.selection == before && model.isPreviewing)
        #expect(model.valueTexts.count == 5)
        #expect(recorded.changes.count == heard)
        #expect(savedSize(recorded.state) == 60)
        // The disk is back: the same reload goes through.
        try model.setSnapper(Self.newList, as: Self.reload)
        #expect(model.committedSize == 70 && savedSize(recorded.state) == 70)
    }

    @Test(
        "a client's new list is recorded as its cause, and refused while any preview is open, its own too, as every direct change"
    )
    func clientCause() throws {
        let recorded = try Recorded()
        let model = recorded.model
        let client = ClientIdentity(uniqueName: ":1.7", pid: 42, command: "snapsizectl")
        try model.preview(x: 324, by: PreviewOwner(":1.7"))
        let heard = recorded.changes.count
        let refused = Result { () throws(ModelError) in
            try model.setSnapper(Self.newList, as: ChangeCause(.set, by: client))
        }
        #expect(refused.error == .refused(.previewActive(owner: PreviewOwner(":1.7"))), "\(refused)")
        #expect(
            model.isPreviewing && model.sizes == .standard && recorded.changes.count == heard,
            "nothing changed, nobody heard")
        #expect(savedSize(recorded.state) == 60)
        try model.perform(as: nil) { $0.endPreview() }
        try model.setSnapper(Self.newList, as: ChangeCause(.set, by: client))
        #expect(model.committedSize == 70 && savedSize(recorded.state) == 70)
        #expect(
            model.history.last.kind == .set && model.history.last.by == client && model.history.canUndo,
            "recorded as the client's move: \(model.history.last)")
    }
}

extension Result {
    /// The error of a failure; nil for a success.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
