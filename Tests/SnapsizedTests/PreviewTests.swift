import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// The preview rules through the real bus: owned by one connection, committed from the release
/// position, cancel restores, steps refused meanwhile, and never stuck.
@Suite("Preview ownership")
struct PreviewTests {
    @Test("commit uses its own x, not the last preview")
    func commitOwnX() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("Preview", [.double(324)])
        #expect(try client.call("Commit", [.double(95)]) == [.uint32(1), .int32(40)])
        #expect(try client.property("SelectedSize") == .int32(40))
        #expect(try client.property("Previewing") == .boolean(false))
    }

    @Test("cancel restores the committed size")
    func cancelRestores() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("Preview", [.double(12)])
        #expect(try client.property("ShownSize") == .int32(20))
        #expect(try client.call("Cancel") == [])
        #expect(try client.property("ShownSize") == .int32(60))
        #expect(try client.property("SelectedSize") == .int32(60))
    }

    @Test("steps and sets are refused during a preview, and a second client is refused too")
    func refusals() throws {
        let fixture = try DaemonFixture()
        let owner = try fixture.client()
        let other = try fixture.client()
        _ = try owner.call("Preview", [.double(250)])
        for (member, arguments) in [
            ("Increment", []), ("Decrement", []), ("StepBy", [DBusValue.int32(1)]),
            ("SetIndex", [.uint32(0)]), ("SetSize", [.int32(20)])
        ] as [(String, [DBusValue])] {
            for client in [owner, other] {
                let error = #expect(throws: MethodError.self) { try client.call(member, arguments) }
                #expect(error?.name == .previewActive)
                // Named as people know it: the program and its pid (this test process).
                #expect(
                    error?.message.contains("(held by \(ownCommand) (pid \(getpid())))") == true,
                    "message: \(String(describing: error?.message))")
            }
        }
        for (member, arguments) in [
            ("Preview", [DBusValue.double(12)]), ("Commit", [.double(12)]), ("Cancel", [])
        ] {
            do {
                _ = try other.call(member, arguments)
                Issue.record("\(member) from a second client was accepted")
            } catch {
                #expect(error.name == .previewActive)
            }
        }
        #expect(try other.property("ShownSize") == .int32(80))
        #expect(try other.property("SelectedSize") == .int32(60))
    }

    @Test("the owner leaving the bus ends its preview, announced")
    func ownerExits() throws {
        let fixture = try DaemonFixture()
        let (watcher, owner) = try fixture.watchedPreview()
        owner.close()
        #expect(watcher.pump(timeout: 10) { watcher.announcements.count == 2 })
        #expect(
            watcher.announcements.last == [
                "ShownIndex": .uint32(2), "ShownSize": .int32(60), "ValueText": .string("60 points"),
                "Previewing": .boolean(false),
                "ChangedBy": .structure([.string(""), .uint32(0), .string("")])  // no client made this change
            ])
        #expect(watcher.committed.isEmpty)
    }

    /// When it ends, and that each Preview call restarts the timer, is PreviewGuardTests' business
    /// (in process, on a manual clock); here: that --preview-timeout reaches the guard.
    @Test("a preview whose owner goes silent ends at the timeout")
    func timeout() throws {
        let fixture = try DaemonFixture(["--preview-timeout", "0.4"])
        let (watcher, owner) = try fixture.watchedPreview()
        #expect(watcher.pump(timeout: 10) { watcher.announcements.count == 2 })
        #expect(watcher.announcements.last?["Previewing"] == .boolean(false))
        #expect(try owner.property("Previewing") == .boolean(false))
        #expect(try owner.property("SelectedSize") == .int32(60))
    }
}
