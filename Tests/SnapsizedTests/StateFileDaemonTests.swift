import Foundation
import Testing
import DBusKit
import TestSupport
@testable import SnapService

/// The two-slot state file through snapsized: a damaged slot or a newer format at start.
@Suite("State file slots, through the daemon")
struct StateFileDaemonTests {
    @Test(
        "through the daemon: a state file in a newer format version is reported, kept aside, and --initial used"
    )
    func daemonNewerVersion() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.client().call("SetSize", [.int32(20)])
        fixture.stop()
        try setSlotVersion(fixture.stateFile, 0, 7)
        try fixture.start(["--initial", "80"])
        #expect(try fixture.client().property("SelectedSize") == .int32(80))
        let folder = (fixture.stateFile as NSString).deletingLastPathComponent
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("state.bad-")
        }
        #expect(kept.count == 1)
        #expect(fixture.daemon?.stderr.contains("version 7") == true, "\(fixture.daemon?.stderr ?? "")")
    }

    @Test("through the daemon: a damaged slot is ignored, two are kept aside", arguments: [[1], [0, 1]])
    func daemon(damaged: [Int]) throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(20)])  // creates the file: slot 0
        _ = try client.call("SetSize", [.int32(100)])  // slot 1
        #expect(
            savedSlots(fixture.stateFile) == [
                StateSlots.Slot(sequence: 1, size: 20), StateSlots.Slot(sequence: 2, size: 100)
            ])
        _ = fixture.daemon.map { kill($0.pid, SIGKILL) }
        fixture.stop()
        // [1]: the newer slot damaged (its commit was acknowledged, but the disk lost it): the older
        // one, 20, is used. [0, 1]: nothing usable, so the file is kept aside and --initial used.
        for number in damaged { try damageSlot(fixture.stateFile, number) }
        try fixture.start(["--initial", "80"])
        let restored = try fixture.client().property("SelectedSize")
        let folder = (fixture.stateFile as NSString).deletingLastPathComponent
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("state.bad-")
        }
        if damaged.count == 1 {
            #expect(restored == .int32(20))
            #expect(kept.isEmpty)
        } else {
            #expect(restored == .int32(80))
            #expect(kept.count == 1)
            #expect(fixture.daemon?.stderr.contains("could not be used") == true)
        }
    }
}
