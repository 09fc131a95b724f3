import Foundation
import Testing
import DBusKit
import SizeSelectorContract
@testable import SnapService
import TestSupport

/// A command line and a history file crafted to carry what a terminal obeys (ESC, the C1 controls
/// CSI, OSC, ST and NEL, DEL, bidi overrides and isolates, zero-width format characters), through
/// the real daemon: the names it stores and every output of snapsizectl that shows them, checked
/// byte by byte.
@Suite("Crafted text from clients and files", .serialized)
struct CraftedTextTests {
    /// The crafted program name, and what a person must read instead (each unprintable scalar `?`).
    static let crafted =
        "evil\u{1B}[2J\u{9B}31m\u{9D}0;owned\u{9C}\u{202E}gnp.exe\u{2066}\u{200B}\u{7F}\u{85}end"
    static let shown = "evil?[2J?31m?0;owned??gnp.exe????end"

    /// Each place in `text` a terminal or a bidi renderer would obey, by its UTF-8 bytes (this
    /// test's own list, not the code's): C0 but the newline, DEL, C1 (C2 80–9F), the zero-width
    /// and direction marks (E2 80 8B–8F), the line and paragraph separators and the bidi
    /// embeddings and overrides (E2 80 A8–AE), the invisible operators and isolates (E2 81 A0–AF),
    /// the byte order mark (EF BB BF).
    static func obeyed(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        var found: [String] = []
        for (at, byte) in bytes.enumerated() {
            let next = at + 1 < bytes.count ? bytes[at + 1] : 0,
                third = at + 2 < bytes.count ? bytes[at + 2] : 0
            let bad =
                (byte < 0x20 && byte != 0x0A) || byte == 0x7F
                || (byte == 0xC2 && (0x80...0x9F).contains(next))
                || (byte == 0xE2 && next == 0x80
                    && ((0x8B...0x8F).contains(third) || (0xA8...0xAE).contains(third)))
                || (byte == 0xE2 && next == 0x81 && (0xA0...0xAF).contains(third))
                || (byte == 0xEF && next == 0xBB && third == 0xBF)
            if bad { found.append("byte \(at): \(String(byte, radix: 16)) \(String(next, radix: 16))") }
        }
        return found
    }

    func expectClean(
        _ what: String, _ text: String, containing expected: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            Self.obeyed(text).isEmpty, "\(what) carries \(Self.obeyed(text)): \(text.debugDescription)",
            sourceLocation: sourceLocation)
        if let expected {
            #expect(
                text.contains(expected), "\(what): \(text.debugDescription)",
                sourceLocation: sourceLocation)
        }
    }

    /// A client whose argv[0] is `crafted` (bash's `exec -a`): it previews 80, then commits when told.
    func craftedClient(_ fixture: DaemonFixture) throws -> ChildProcess {
        let script = """
            import sys
            from gi.repository import Gio, GLib
            bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            def call(member, x):
                bus.call_sync(sys.argv[1], sys.argv[2], sys.argv[3], member, GLib.Variant('(d)', (x,)), None, 0, 10000, None)
            call('Preview', 246.0)
            print('previewing', flush=True)
            sys.stdin.readline()
            call('Commit', 246.0)
            print('committed', flush=True)
            sys.stdin.readline()
            """
        return try ChildProcess(
            "/bin/bash",
            [
                "-c", "exec -a \"$0\" /usr/bin/python3 -c \"$1\" \"${@:2}\"", Self.crafted, script,
                SelectorBus.name.rawValue, SelectorBus.path.rawValue,
                SelectorBus.interface.rawValue
            ],
            environment: fixture.environment, stdin: .pipe)
    }

    @Test(
        "a crafted command line: ChangedBy, the PreviewActive message, status, watch and history show it, never obey it"
    )
    func craftedCommandLine() throws {
        let fixture = try DaemonFixture()
        let watchPlain = try ChildProcess(
            productPath("snapsizectl")!, ["watch", "--count", "2"], environment: fixture.environment)
        let watchJSON = try ChildProcess(
            productPath("snapsizectl")!, ["watch", "--json", "--count", "2"],
            environment: fixture.environment)
        #expect(
            waitUntil(timeout: 10) {
                watchPlain.stderr.contains("Watching") && watchJSON.stderr.contains("Watching")
            })
        let client = try craftedClient(fixture)
        defer { client.closeStdin(); _ = client.terminate() }
        try #require(waitUntil(timeout: 10) { client.stdout.contains("previewing") }, "\(client.stderr)")
        let holder = "\(Self.shown) (pid \(client.pid))"

        // The daemon's stored name: ChangedBy as the bus carries it.
        let own = try fixture.client()
        #expect(
            waitUntil(timeout: 5) {
                (try? own.property("ChangedBy")).flatMap(ClientIdentity.init)?.pid == UInt32(client.pid)
            })
        let changedBy = try #require(ClientIdentity(try own.property("ChangedBy")))
        #expect(changedBy.command == Self.shown, "\(changedBy.command.debugDescription)")
        // The refusal another person's call gets, on the bus and as snapsizectl prints it.
        do {
            _ = try own.call("Increment")
            Issue.record("Increment during another client's preview was not refused")
        } catch {
            expectClean("the PreviewActive message", error.message, containing: holder)
        }
        let refused = try fixture.ctl(["inc"])
        #expect(refused.status == 1)
        expectClean("snapsizectl inc's refusal", refused.err, containing: "held by \(holder)")
        expectClean(
            "snapsizectl status", try fixture.ctl(["status"]).out,
            containing: "previewing: yes, held by \(holder)\n")
        let statusJSON = try fixture.ctl(["status", "--json"]).out
        expectClean("snapsizectl status --json", statusJSON)
        let jsonBy = try parseJSONObject(statusJSON)["changedBy"] as? [String: Any]
        #expect(jsonBy?["command"] as? String == Self.shown, "\(statusJSON)")

        client.writeToStdin("\n")
        #expect(waitUntil(timeout: 10) { client.stdout.contains("committed") }, "\(client.stderr)")
        for watch in [watchPlain, watchJSON] {
            #expect(waitUntil(timeout: 10) { !watch.isRunning }, "\(watch.stdout) \(watch.stderr)")
            #expect(watch.wait() == 0, "\(watch.stderr)")
            expectClean("snapsizectl watch", watch.stdout + watch.stderr)
        }
        #expect(watchJSON.stdout.contains(Self.shown), "\(watchJSON.stdout)")
        expectClean("snapsizectl history", try fixture.ctl(["history"]).out, containing: holder)
        let historyJSON = try fixture.ctl(["history", "--json"]).out
        expectClean(
            "snapsizectl history --json", historyJSON, containing: "\"command\":\"\(Self.shown)\"")
    }

    @Test(
        "a crafted history file: its names are stored and shown without ESC, C1 controls or bidi overrides"
    )
    func craftedHistoryFile() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let path = HistoryFile.path(besideStateFile: fixture.stateFile)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let microseconds = Int64(Date().timeIntervalSince1970 * 1_000_000)
        try
            ("snapsize-history 1\nS 0\nU 60 80\n"
            + "L 1 \(microseconds) 60 80 set 4242 :1.7\u{1B}[31m \(Self.crafted)\u{1B}]0;pwned\u{07}\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        try fixture.start()
        let own = try fixture.client()
        let entries = try HistoryEntry.list(try own.call("GetHistory", [.uint32(10)]))
        try #require(entries.count == 1, "the crafted history file was not read: \(entries)")
        let by = entries[0].by
        expectClean("the stored name", by.uniqueName + by.command)
        #expect(by.uniqueName == ":1.7?[31m" && by.command == Self.shown + "?]0;pwned?", "\(by)")
        expectClean(
            "snapsizectl history", try fixture.ctl(["history"]).out,
            containing: "\(Self.shown)?]0;pwned? (pid 4242)")
        expectClean(
            "snapsizectl history --json", try fixture.ctl(["history", "--json"]).out, containing: "4242")
    }
}
