import Foundation
import Testing
import DBusKit
import SizeSelectorContract
@testable import SnapService
import TestSupport

/// The history file beside the state file, through the real daemon: it survives SIGTERM and
/// kill -9, a damaged one is kept aside, it stays bounded, --no-state keeps the history in memory.
@Suite("History file", .serialized)
struct HistoryFileTests {
    private func history(_ client: SelectorClient) throws -> [HistoryEntry] {
        try HistoryEntry.list(try client.call("GetHistory", [.uint32(1000)]))
    }

    private func historyPath(_ fixture: DaemonFixture) -> String {
        HistoryFile.path(besideStateFile: fixture.stateFile)
    }

    /// A few changes of each D-Bus kind, ending with an undo (so there is something to redo).
    private func changes(_ client: SelectorClient) throws {
        _ = try client.call("Increment")
        _ = try client.call("SetSize", [.int32(20)])
        _ = try client.call("Commit", [.double(1e9)])
        _ = try client.call("Undo")
    }

    @Test(
        "SIGTERM, then a restart: the same entries, the same undo position; the file is 0600 beside the state file"
    )
    func survivesSigterm() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        try changes(client)
        let before = try history(client)
        #expect(fixture.stop() == 0)
        let path = historyPath(fixture)
        #expect(path == (fixture.stateFile as NSString).deletingLastPathComponent + "/history")
        let info = try FileManager.default.attributesOfItem(atPath: path)
        #expect((info[.posixPermissions] as? Int) == 0o600)
        try fixture.start()
        let again = try fixture.client()
        #expect(try history(again) == before)
        #expect(
            try again.property("CanRedo") == .boolean(true)
                && again.property("CanUndo") == .boolean(true))
        #expect(try again.call("Redo")[1] == .int32(100))
        #expect(try again.call("Undo")[1] == .int32(20))
        #expect(try again.call("Undo")[1] == .int32(80))
        #expect(try history(again).last?.sequence == 7, "the numbering goes on")
    }

    @Test(
        "kill -9, then a restart: what was acknowledged is the saved size; entries may be missing only from the newest end"
    )
    func survivesKill() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        for _ in 0..<3 { try changes(client) }
        let written = try history(client)
        // Written within HistoryWriter.delay after the changes, without an orderly stop.
        let path = historyPath(fixture)
        #expect(
            waitUntil(timeout: 10) {
                FileManager.default.contents(atPath: path).flatMap { HistoryFile.parse(Array($0)) }?
                    .lastSequence == written.last?.sequence
            })
        try changes(client)  // and killed before they can be written
        let before = try history(client)
        let size = try client.property("SelectedSize")
        let daemon = try #require(fixture.daemon)
        kill(daemon.pid, SIGKILL)
        _ = daemon.wait()
        try fixture.start()
        let again = try fixture.client()
        #expect(try again.property("SelectedSize") == size, "the state file, saved before each reply")
        let after = try history(again)
        #expect(
            Array(before.prefix(after.count)) == after,
            "\(after.map(\.sequence)) of \(before.map(\.sequence))")
        #expect(after.count >= written.count, "what was written before the kill is there")
        // The undo position is the one of the entries kept: Redo is possible after the third round's Undo.
        #expect(try again.property("CanRedo") == .boolean(after.last?.kind == .undo))
        _ = try again.call("Increment")
        #expect(try history(again).last?.sequence == UInt64(after.count + 1))
    }

    @Test("a damaged history file is kept aside, reported, and the daemon serves with an empty history")
    func damaged() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let path = historyPath(fixture)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "snapsize-history 1\nS 3\nX what is this\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        try fixture.start()
        let daemon = try #require(fixture.daemon)
        let client = try fixture.client()
        #expect(try history(client).isEmpty)
        #expect(daemon.stderr.contains("the history file \(path) could not be used"), "\(daemon.stderr)")
        let folder = (path as NSString).deletingLastPathComponent
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("history.bad-")
        }
        #expect(kept.count == 1, "\(kept)")
        _ = try client.call("Increment")
        #expect(try history(client).map(\.kind) == [.step])
        #expect(
            waitUntil(timeout: 5) {
                FileManager.default.contents(atPath: path).flatMap { HistoryFile.parse(Array($0)) }?
                    .entries.map(\.kind) == [.step]
            })
    }

    @Test("a symbolic link in the history file's place is never followed: kept aside")
    func symbolicLink() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let path = historyPath(fixture)
        let target = fixture.bus.directory + "/elsewhere"
        try "snapsize-history 1\nS 0\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        try fixture.start()
        let client = try fixture.client()
        _ = try client.call("Increment")
        #expect(
            fixture.daemon?.stderr.contains("symbolic link") == true, "\(fixture.daemon?.stderr ?? "")")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "snapsize-history 1\nS 0\n")
    }

    @Test("1,000 changes: a bounded file, and 100 entries after a restart")
    func bounded() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        // Every call changes the size (sets to either end, every third an undo), so 1,000 entries are made.
        for n in 0..<1000 {
            _ =
                try n % 3 == 2
                ? client.call("Undo") : client.call("SetSize", [.int32(n % 2 == 0 ? 20 : 100)])
        }
        let before = try history(client)
        #expect(before.last?.sequence == 1000, "\(before.map(\.sequence))")
        #expect(fixture.stop() == 0)
        let bytes =
            try FileManager.default.attributesOfItem(atPath: historyPath(fixture))[.size] as? Int ?? -1
        #expect(bytes > 0 && bytes < HistoryFile.maximumBytes, "\(bytes)")
        // Bounded by the snapshot it is rewritten as, not by the changes made: a file that only grew
        // would hold a 40-byte record per change (40,000 bytes), and its limit is far above that.
        // A full snapshot (header, S, both stacks, the entries), its appended entries, and the
        // client records (one client here; a command is at most 4 KiB).
        let snapshot = HistoryFile.header.count + 16 + 2 * History.capacity * 24 + History.capacity * 40
        #expect(bytes <= snapshot + HistoryFile.appendedRecords * 40 + 4096, "\(bytes) bytes")
        try fixture.start()
        let after = try history(try fixture.client())
        #expect(after.count == 100 && after == before)
    }

    @Test("--no-state: the history is kept in memory only")
    func noState() throws {
        let fixture = try DaemonFixture(["--no-state"])
        let client = try fixture.client()
        _ = try client.call("Increment")
        #expect(try history(client).count == 1)
        #expect(fixture.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: historyPath(fixture)))
        try fixture.start(["--no-state"])
        #expect(try history(try fixture.client()).isEmpty)
    }
}
