import Foundation
import Testing
import SnapCore
@testable import SnapService
import SystemCalls
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// StateStore's failure branches, in process: the POSIX calls fail on demand through the
/// SystemCalls seam (debug builds), on a real file in a temporary folder.
@Suite("StateStore failures in process")
struct StateStoreTests {
    /// A folder holding a state file that says 60 (unless `empty`).
    final class Folder {
        let path = try! makeTemporaryDirectory()
        var state: String { path + "/state" }
        let store: StateStore

        init(empty: Bool = false) throws {
            store = StateStore(path: path + "/state")
            if !empty { #expect(store.save(size: 60) == nil) }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        var saved: Int? { savedSize(state) }
        var files: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        }
    }

    @Test(
        "the first save makes the file whole (temporary file, flush, rename, flush the folder); later ones write one slot"
    )
    func order() throws {
        let folder = try Folder(empty: true)
        let mock = MockedCalls()
        #expect(withMockedCalls(mock) { folder.store.save(size: 60) } == nil)
        #expect(mock.trace == [.open, .write, .fchmod, .fsync, .rename, .open, .fsync, .close])
        let commit = MockedCalls()
        #expect(withMockedCalls(commit) { folder.store.save(size: 80) } == nil)
        #expect(
            commit.trace == [.fstat, .stat, .pwrite, .fdatasync],
            "the file, then that its name still names it")
        #expect(folder.saved == 80)
        #expect(folder.files == ["state"])
    }

    @Test(
        "short writes and EINTR are written through when the file is made; a short slot write is an error"
    )
    func shortWrites() throws {
        let folder = try Folder(empty: true)
        let mock = MockedCalls()
        mock.limitWrites(to: 1000)
        mock.fail(.write, with: EINTR, after: 2, times: 1)
        #expect(withMockedCalls(mock) { folder.store.save(size: 100) } == nil)
        #expect(mock.trace.filter { $0 == .write }.count == StateSlots.fileSize / 1000 + 2)
        #expect(folder.saved == 100)
        let short = MockedCalls()
        short.limitWrites(to: 8)
        #expect(withMockedCalls(short) { folder.store.save(size: 20) }?.contains("short write") == true)
        #expect(folder.saved == 100, "the slot holding the saved size was not touched")
    }

    @Test(
        "a full disk (ENOSPC), EIO on fdatasync: the saved size stays, nothing is left behind, the next save works",
        arguments: [(SystemCall.pwrite, ENOSPC, "cannot write"), (.fdatasync, EIO, "cannot flush")])
    func commitFailures(call: SystemCall, code: Int32, words: String) throws {
        let folder = try Folder()
        #expect(folder.store.save(size: 80) == nil)
        let mock = MockedCalls()
        mock.fail(call, with: code)
        let problem = withMockedCalls(mock) { folder.store.save(size: 20) }
        let expected = String(cString: strerror(code))
        #expect(
            problem?.contains(words) == true && problem?.contains(expected) == true,
            "\(String(describing: problem))")
        #expect(StateStore(path: folder.state).load() == .size(80), "the last saved size survives")
        #expect(folder.files == ["state"])
        #expect(folder.store.save(size: 40) == nil)
        #expect(StateStore(path: folder.state).load() == .size(40))
    }

    @Test(
        "making the file: a full disk (ENOSPC), a refused folder (EACCES), EIO on fsync, a failed rename leave nothing behind",
        arguments: [
            (SystemCall.write, ENOSPC, "cannot write"),
            (.open, EACCES, "cannot create"),
            (.fsync, EIO, "cannot flush"),
            (.rename, EXDEV, "cannot rename")
        ])
    func creationFailures(call: SystemCall, code: Int32, words: String) throws {
        let folder = try Folder(empty: true)
        let mock = MockedCalls()
        mock.fail(call, with: code)
        let problem = withMockedCalls(mock) { folder.store.save(size: 20) }
        let expected = String(cString: strerror(code))
        #expect(
            problem?.contains(words) == true && problem?.contains(expected) == true,
            "\(String(describing: problem))")
        #expect(folder.files == [], "no temporary file left: \(folder.files)")
        #expect(StateStore(path: folder.state).load() == .missing)
    }

    @Test("a save that fails refuses the change: the model keeps its size and tells nobody")
    func modelRefuses() throws {
        let folder = try Folder()
        let model = SelectionModel(selection: try Selection(committed: 2), store: folder.store)
        let recorder = ChangeRecorder(model)
        let mock = MockedCalls()
        mock.fail(.fdatasync, with: EIO)
        let result = withMockedCalls(mock) {
            Result { () throws(ModelError) in
                try model.perform(as: ChangeCause(.set)) { selection throws(SnapError) in
                    try selection.set(index: 4)
                }
            }
        }
        guard case .failure(.saveFailed(let problem)) = result else {
            Issue.record("expected saveFailed, got \(result)")
            return
        }
        #expect(problem.contains(String(cString: strerror(EIO))))
        #expect(model.committedSize == 60 && recorder.changes.isEmpty)
        #expect(folder.saved == 60)
        // The disk is back: the same request goes through.
        try model.perform(as: ChangeCause(.set)) { selection throws(SnapError) in
            try selection.set(index: 4)
        }
        #expect(folder.saved == 100 && recorder.changes.count == 1)
    }
}
