import Foundation
import Testing
import DBusKit
import SizeSelectorContract
@testable import SnapService
import TestSupport

/// The history file moved, replaced, cut or removed under the running daemon (a backup tool, an
/// editor, a person cleaning up), as the state file's `FileFaultTests` do it: the changes after it
/// go into a whole new history file at the path, so a restart, after SIGTERM or kill -9, finds
/// every acknowledged entry and the undo position as they were.
@Suite("Reliability: the history file moved, replaced or removed while the daemon runs", .serialized)
struct HistoryFaultTests {
    /// What happens to the history file (or its folder) between two runs of changes.
    enum Attack: String, CaseIterable, CustomStringConvertible {
        case renamed, renamedCopyPutBack, replacedByFolder, replacedByFIFO, replacedBySymlink, truncated,
            removed
        case folderRenamed, folderRemoved
        var description: String { rawValue }

        func apply(to path: String) throws {
            let files = FileManager.default
            let folder = (path as NSString).deletingLastPathComponent
            switch self {
            case .renamed: try files.moveItem(atPath: path, toPath: path + "~")
            case .renamedCopyPutBack:
                try files.moveItem(atPath: path, toPath: path + "~")
                try files.copyItem(atPath: path + "~", toPath: path)
            case .replacedByFolder:
                try files.removeItem(atPath: path)
                try files.createDirectory(atPath: path, withIntermediateDirectories: false)
            case .replacedByFIFO:
                try files.removeItem(atPath: path)
                guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo: \(errno)") }
            case .replacedBySymlink:
                try "elsewhere".write(toFile: folder + "/elsewhere", atomically: false, encoding: .utf8)
                try files.removeItem(atPath: path)
                try files.createSymbolicLink(atPath: path, withDestinationPath: folder + "/elsewhere")
            case .truncated:
                guard truncate(path, 0) == 0 else { throw TestFailure("truncate: \(errno)") }
            case .removed: try files.removeItem(atPath: path)
            case .folderRenamed: try files.moveItem(atPath: folder, toPath: folder + ".old")
            case .folderRemoved: try files.removeItem(atPath: folder)
            }
        }
    }

    enum Stop: String, CaseIterable, CustomStringConvertible {
        case sigterm, kill9
        var description: String { rawValue }
    }

    private func history(_ client: SelectorClient) throws -> [HistoryEntry] {
        try HistoryEntry.list(try client.call("GetHistory", [.uint32(1000)]))
    }

    /// The newest sequence number in the regular file at `path` (never opening a FIFO or following a link).
    private func writtenSequence(_ path: String) -> UInt64? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileManager.default.contents(atPath: path).flatMap { HistoryFile.parse(Array($0)) }?
            .lastSequence
    }

    @Test(
        "four changes, the attack, four more, then SIGTERM or kill -9: the restart finds all eight and CanUndo",
        arguments: Attack.allCases, Stop.allCases)
    func attacked(attack: Attack, stop: Stop) throws {
        let fixture = try DaemonFixture()
        let path = HistoryFile.path(besideStateFile: fixture.stateFile)
        let client = try fixture.client()
        let daemon = try #require(fixture.daemon)
        for size in [80, 20, 100, 40] { _ = try client.call("SetSize", [.int32(Int32(size))]) }
        _ = try client.call("Undo")  // 100 again, 40 to redo
        #expect(waitUntil(timeout: 10) { writtenSequence(path) == 5 }, "written before the attack")
        try attack.apply(to: path)
        for size in [60, 80, 20] { _ = try client.call("SetSize", [.int32(Int32(size))]) }
        let before = try history(client)
        #expect(before.count == 8)
        switch stop {
        case .sigterm:
            #expect(fixture.stop() == 0)
        case .kill9:
            // The writer writes within its delay after the reply; what it wrote, and where, is the test.
            #expect(
                waitUntil(timeout: 5) { writtenSequence(path) == 8 },
                "\(attack): the newest entries at the path")
            kill(daemon.pid, SIGKILL)
            fixture.stop()
        }
        let noted =
            daemon.stderr.components(separatedBy: "the history file \(path) is no longer").count - 1
        #expect(noted == 1, "\(attack): logged once: \(daemon.stderr)")
        var info = stat()
        #expect(
            lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o777 == 0o600,
            "\(attack): a regular file, mode 0600")
        if attack == .replacedBySymlink {
            #expect(
                try String(
                    contentsOfFile: (path as NSString).deletingLastPathComponent + "/elsewhere",
                    encoding: .utf8)
                    == "elsewhere", "the link's target is never written")
        }
        try fixture.start()
        let again = try fixture.client()
        let after = try history(again)
        #expect(
            after.map(\.sequence) == Array(1...8), "\(attack), \(stop): \(fixture.daemon?.stderr ?? "")")
        #expect(after == before)
        #expect(
            try again.property("CanUndo") == .boolean(true)
                && again.property("CanRedo") == .boolean(false))
        #expect(try again.call("Undo")[1] == .int32(80), "\(attack), \(stop)")
        #expect(try again.call("Undo")[1] == .int32(60), "\(attack), \(stop)")
    }
}
