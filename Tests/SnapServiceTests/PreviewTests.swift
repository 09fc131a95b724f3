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
        for (member, arguments) in [("Increment", []), ("Decrement", []), ("StepBy", [DBusValue.int32(1)]),
                                    ("SetIndex", [.uint32(0)]), ("SetSize", [.int32(20)])] as [(String, [DBusValue])] {
            for client in [owner, other] {
                #expect(throws: MethodError.self) { try client.call(member, arguments) }
                do {
                    _ = try client.call(member, arguments)
                } catch {
                    #expect(error.name == .previewActive)
                    #expect(error.message.contains(owner.connection.uniqueName), "message: \(error.message)")
                }
            }
        }
        for (member, arguments) in [("Preview", [DBusValue.double(12)]), ("Commit", [.double(12)]), ("Cancel", [])] {
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

    @Test("the owner leaving the bus ends its preview within 100 ms, announced")
    func ownerExits() throws {
        let fixture = try DaemonFixture()
        let watcher = try fixture.client()
        watcher.listen()
        let owner = try fixture.client()
        _ = try owner.call("Preview", [.double(12)])
        #expect(watcher.pump { watcher.propertiesChanged.count == 1 })
        let closed = Date()
        owner.close()
        #expect(watcher.pump(timeout: 2) { watcher.propertiesChanged.count == 2 })
        let elapsed = Date().timeIntervalSince(closed)
        #expect(elapsed < 0.1, "the preview ended \(elapsed) s after its owner left")
        #expect(watcher.propertiesChanged.last == [
            "ShownIndex": .uint32(2), "ShownSize": .int32(60), "ValueText": .string("60 points"), "Previewing": .boolean(false),
        ])
        #expect(watcher.committed.isEmpty)
        print("owner left: preview reverted " + String(format: "%.1f ms", elapsed * 1000) + " after its connection closed")
    }

    @Test("a preview whose owner goes silent ends at the timeout")
    func timeout() throws {
        let fixture = try DaemonFixture(["--preview-timeout", "0.4"])
        let watcher = try fixture.client()
        watcher.listen()
        let owner = try fixture.client()
        let opened = Date()
        _ = try owner.call("Preview", [.double(12)])
        #expect(try owner.property("Previewing") == .boolean(true))
        #expect(watcher.pump(timeout: 3) { watcher.propertiesChanged.count == 2 })
        let elapsed = Date().timeIntervalSince(opened)
        #expect(elapsed >= 0.35 && elapsed < 1.5, "timed out after \(elapsed) s")
        #expect(try owner.property("Previewing") == .boolean(false))
        #expect(try owner.property("SelectedSize") == .int32(60))
        print("silent owner: preview reverted " + String(format: "%.0f ms", elapsed * 1000) + " after opening, with --preview-timeout 0.4")
        // A Preview call restarts the silence timer: moving every 0.2 s keeps it open past 0.4 s.
        _ = try owner.call("Preview", [.double(12)])
        for _ in 0..<4 {
            usleep(200_000)
            _ = try owner.call("Preview", [.double(20)])
        }
        #expect(try owner.property("Previewing") == .boolean(true))
    }
}
