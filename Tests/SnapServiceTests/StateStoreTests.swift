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
    /// A folder holding a state file that says `size=60`.
    final class Folder {
        let path = try! makeTemporaryDirectory()
        var state: String { path + "/state" }
        let store: StateStore

        init() throws {
            store = StateStore(path: path + "/state")
            #expect(store.save(size: 60) == nil)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        var saved: String? { try? String(contentsOfFile: state, encoding: .utf8) }
        var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }

    @Test("a save is: write the temporary file, flush it, rename it over, flush the folder")
    func order() throws {
        let folder = try Folder()
        let mock = MockedCalls()
        #expect(withMockedCalls(mock) { folder.store.save(size: 80) } == nil)
        // (fchmod only when the umask takes owner bits, so it is left out of the comparison.)
        #expect(mock.trace.filter { $0 != .fchmod } == [.open, .write, .fsync, .close, .rename, .open, .fsync, .close])
        #expect(folder.saved == "size=80\n")
        #expect(folder.files == ["state"])
    }

    @Test("short writes and EINTR are written through")
    func shortWrites() throws {
        let folder = try Folder()
        let mock = MockedCalls()
        mock.limitWrites(to: 1)
        mock.fail(.write, with: EINTR, after: 2, times: 1)
        #expect(withMockedCalls(mock) { folder.store.save(size: 100) } == nil)
        #expect(mock.trace.filter { $0 == .write }.count == "size=100\n".utf8.count + 1)
        #expect(folder.saved == "size=100\n")
    }

    @Test("a full disk (ENOSPC), a refused folder (EACCES), EIO on fsync, a failed rename: the old file stays, nothing is left behind",
          arguments: [
              (SystemCall.write, ENOSPC, "cannot write"),
              (.open, EACCES, "cannot create"),
              (.fsync, EIO, "cannot flush"),
              (.rename, EXDEV, "cannot rename"),
          ])
    func failures(call: SystemCall, code: Int32, words: String) throws {
        let folder = try Folder()
        let mock = MockedCalls()
        mock.fail(call, with: code)
        let problem = withMockedCalls(mock) { folder.store.save(size: 20) }
        let expected = String(cString: strerror(code))
        #expect(problem?.contains(words) == true && problem?.contains(expected) == true, "\(String(describing: problem))")
        #expect(folder.saved == "size=60\n", "the old state survives")
        #expect(folder.files == ["state"], "no temporary file left: \(folder.files)")
        #expect(StateStore(path: folder.state).load() == .size(60))
    }

    @Test("a save that fails refuses the change: the model keeps its size and tells nobody")
    func modelRefuses() throws {
        let folder = try Folder()
        let model = SelectionModel(selection: try Selection(committed: 2), store: folder.store)
        var notified: [SelectionChange] = []
        model.observe { notified.append($0) }
        let mock = MockedCalls()
        mock.fail(.fsync, with: EIO)
        let result = withMockedCalls(mock) {
            Result { () throws(ModelError) in try model.perform { selection throws(SnapError) in try selection.set(index: 4) } }
        }
        guard case .failure(.saveFailed(let problem)) = result else {
            Issue.record("expected saveFailed, got \(result)")
            return
        }
        #expect(problem.contains(String(cString: strerror(EIO))))
        #expect(model.committedSize == 60 && notified.isEmpty)
        #expect(folder.saved == "size=60\n")
        // The disk is back: the same request goes through.
        try model.perform { selection throws(SnapError) in try selection.set(index: 4) }
        #expect(folder.saved == "size=100\n" && notified.count == 1)
    }
}
