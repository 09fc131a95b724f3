import Foundation
import Testing
import SizeSelectorContract
import SnapCore
@testable import SnapService
import SnapSettings
import SnapTexts
import SystemCalls
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// `RunningSettings`, the one owner of the settings in force, in process: a reload (SIGHUP) read
/// from a file the test holds, a run-time override and its revert, on a real model and StateStore
/// in a temporary folder (no bus: the preview guard and the accessible side are left out).
@Suite("RunningSettings: the file, a run-time override and the way back")
struct RunningSettingsTests {
    /// Standard sizes committed at 60 and saved; `file` is what the next reload reads.
    final class Setup {
        let folder = try! makeTemporaryDirectory()
        var state: String { folder + "/state" }
        let model: SelectionModel
        let recorder: ChangeRecorder<Void>
        let running: RunningSettings
        let config = ConfigReport()
        var file = DaemonSettings()
        /// Nil: the file reads well; else the reason it cannot be used.
        var broken: String?

        init() throws {
            let store = StateStore(path: folder + "/state")
            #expect(store.save(size: 60) == nil)
            model = SelectionModel(selection: try Selection(committed: 2), store: store)
            recorder = ChangeRecorder(model)
            running = RunningSettings(DaemonSettings(), model: model, config: config)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        func reload() {
            running.reload { () throws(InvalidValue) -> DaemonSettings in
                if let broken { throw InvalidValue(broken) }
                return file
            }
        }

        /// The owner and the model agree on the list, track and layout.
        var agrees: Bool {
            running.inForce.snapper == model.snapper && running.inForce.texts == model.texts
        }
    }

    static let client = ClientIdentity(uniqueName: ":1.7", pid: 42, command: "snapsizectl")
    static let byClient = ChangeCause(.set, by: client)
    static let runtimeSizes = try! SizeSet([10, 30, 50, 70])

    @Test(
        "a reload compares the file with the settings in force: the same file changes nothing, a new one is applied once"
    )
    func reloadAgainstOwner() throws {
        let setup = try Setup()
        setup.reload()
        #expect(setup.recorder.changes.isEmpty, "the same settings: nothing to apply")
        setup.file.snapper = Snapper(sizes: try SizeSet([20, 50, 100]))
        setup.file.previewTimeout = 5
        setup.reload()
        #expect(
            setup.model.sizes.sizes == [20, 50, 100] && setup.running.inForce.previewTimeout == 5
                && setup.agrees)
        #expect(setup.running.file == setup.file && setup.running.inForce == setup.file)
        #expect(setup.model.history.last.kind == .reload && setup.model.history.last.by == .unknown)
        let heard = setup.recorder.changes.count
        setup.reload()
        #expect(setup.recorder.changes.count == heard, "applied once")
    }

    @Test(
        "a run-time list: in force at once, recorded as its client's move; a SIGHUP keeps it, applying the file's other changes; revert brings the file's latest list back"
    )
    func overrideAndRevert() throws {
        let setup = try Setup()
        let running = setup.running
        #expect(
            try running.set(SettingsOverride(sizes: Self.runtimeSizes), as: Self.byClient) == [
                "sizes (committed size 60 -> 70)"
            ])
        #expect(
            setup.model.sizes == Self.runtimeSizes && setup.model.committedSize == 70
                && savedSize(setup.state) == 70)
        #expect(setup.model.history.last.kind == .set && setup.model.history.last.by == Self.client)
        #expect(
            running.override.sizes == Self.runtimeSizes && running.file == DaemonSettings()
                && setup.agrees)
        // An unchanged file: the override stays.
        let heard = setup.recorder.changes.count
        setup.reload()
        #expect(setup.model.sizes == Self.runtimeSizes && setup.recorder.changes.count == heard)
        // A new list, track and label in the file: the list waits under the override, the rest applies.
        setup.file.snapper = Snapper(sizes: try SizeSet([20, 40, 60]), track: try Track(width: 200))
        setup.file.texts = Texts(label: "Brush")
        setup.reload()
        #expect(setup.model.sizes == Self.runtimeSizes, "the run-time list stays in force")
        #expect(
            setup.model.snapper.track.width == 200 && setup.model.texts.label == "Brush",
            "the file's other changes apply")
        #expect(
            running.file == setup.file && running.override.sizes == Self.runtimeSizes && setup.agrees)
        // Revert: the file's latest list, as a client's move.
        #expect(try running.revert(as: Self.byClient) == ["sizes (committed size 70 -> 60)"])
        #expect(
            setup.model.sizes.sizes == [20, 40, 60] && setup.model.committedSize == 60
                && savedSize(setup.state) == 60)
        #expect(running.override == .none && running.inForce == setup.file && setup.agrees)
        #expect(try running.revert(as: Self.byClient) == [], "nothing to revert")
    }

    @Test(
        "a run-time list is refused whole while a preview is open, and when its size cannot be saved: the override, the list and the disk stay"
    )
    func overrideRefused() throws {
        let setup = try Setup()
        let running = setup.running
        let owner = PreviewOwner(":1.9")
        try setup.model.preview(x: 324, by: owner)
        let heard = setup.recorder.changes.count
        let previewing = Result { () throws(ModelError) in
            try running.set(SettingsOverride(sizes: Self.runtimeSizes), as: Self.byClient)
        }
        #expect(previewing.error == .refused(.previewActive(owner: owner)), "\(previewing)")
        #expect(
            running.override == .none && setup.model.isPreviewing
                && setup.recorder.changes.count == heard && setup.agrees)
        try setup.model.perform(as: nil) { $0.endPreview() }
        let mock = MockedCalls()
        mock.fail(.fdatasync, with: EIO)
        let unsaved = withMockedCalls(mock) {
            Result { () throws(ModelError) in
                try running.set(SettingsOverride(sizes: Self.runtimeSizes), as: Self.byClient)
            }
        }
        guard case .saveFailed = unsaved.error else {
            Issue.record("expected saveFailed, got \(unsaved)")
            return
        }
        #expect(
            running.override == .none && setup.model.sizes == .standard && savedSize(setup.state) == 60
                && setup.agrees)
        try running.set(SettingsOverride(sizes: Self.runtimeSizes), as: Self.byClient)
        #expect(running.override.sizes == Self.runtimeSizes && savedSize(setup.state) == 70)
    }

    @Test(
        "a reload whose list cannot be saved keeps the list in force and applies the rest; the next reload of the same file applies it"
    )
    func reloadRefusedThenRetried() throws {
        let setup = try Setup()
        setup.file.snapper = Snapper(sizes: Self.runtimeSizes)
        setup.file.texts = Texts(label: "Brush")
        let mock = MockedCalls()
        mock.fail(.fdatasync, with: EIO)
        withMockedCalls(mock) { setup.reload() }
        #expect(setup.model.sizes == .standard && setup.model.texts.label == "Brush" && setup.agrees)
        #expect(
            setup.running.file == setup.file, "the file was read; its list is what could not be applied")
        setup.reload()
        #expect(
            setup.model.sizes == Self.runtimeSizes && setup.running.inForce == setup.file && setup.agrees
        )
    }

    @Test(
        "a file that cannot be used changes nothing and says why in ConfigProblems; the next good one clears it"
    )
    func brokenFile() throws {
        let setup = try Setup()
        setup.file.previewTimeout = 5
        setup.broken = "line 1: unknown key 'sizez'"
        setup.reload()
        #expect(setup.running.file == DaemonSettings() && setup.running.inForce.previewTimeout == 30)
        #expect(
            setup.config.problems.count == 1
                && setup.config.problems[0].hasPrefix("line 1: unknown key 'sizez'"))
        setup.broken = nil
        setup.reload()
        #expect(setup.config.problems.isEmpty && setup.running.inForce.previewTimeout == 5)
    }
}
