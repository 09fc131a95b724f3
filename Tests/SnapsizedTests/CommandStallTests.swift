import Foundation
import Testing
import DBusKit
import SizeSelectorContract
@testable import SnapService
import TestSupport

/// A client whose command line cannot be read (its process stuck in a page fault on a stalled
/// mount), made in a debug build by `SNAPSIZE_TEST_STALLED_PID` (`CommandReader.read`): the read
/// never ends, and the daemon serves on.
@Suite("Reliability: a client whose command line cannot be read", .serialized)
struct CommandStallTests {
    @Test(
        "a process whose /proc/PID/cmdline read never ends stalls nobody: its calls and another process's are answered"
    )
    func stalledRead() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        fixture.environment["SNAPSIZE_TEST_STALLED_PID"] = String(getpid())
        try fixture.start()
        let stalled = try fixture.client()  // this test's process: reading its command line never ends
        #expect(
            try stalled.call("SetSize", [.int32(80)])[1] == .int32(80),
            "answered once CommandReader.timeout passed")
        let other = try fixture.gdbusCall("Increment")
        #expect(
            other.status == 0 && other.stdout.contains("100"), "another process, meanwhile: \(other)")
        #expect(try stalled.property("SelectedSize") == .int32(100))
        let entries = try HistoryEntry.list(try stalled.call("GetHistory", [.uint32(10)]))
        #expect(entries.count == 2, "\(entries)")
        #expect(
            entries.first?.by.pid == UInt32(getpid()) && entries.first?.by.command == "",
            "known by its pid alone: \(entries)")
        #expect(
            entries.last.map { $0.by.pid != 0 && $0.by.pid != UInt32(getpid()) } == true, "\(entries)")
        #expect(fixture.stop() == 0, "SIGTERM ends it, the stuck thread with it")
    }
}
