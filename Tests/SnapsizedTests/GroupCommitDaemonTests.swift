import Foundation
import Testing
@_spi(Testing) import DBusKit
import SnapCore
@testable import SnapService
import TestSupport

/// Group commit through snapsized: calls queued while it could not read are answered in order and
/// saved together.
@Suite("Group commit, through the daemon")
struct GroupCommitDaemonTests {
    @Test(
        "through the daemon: calls queued while it was stopped are answered in order, saved in fewer writes than calls"
    )
    func daemon() throws {
        let fixture = try DaemonFixture(["--initial", "20"])
        guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(20)])  // creates the file
        let before = savedSlots(fixture.stateFile).compactMap { $0 }.map(\.sequence).max() ?? 0
        let caller = try Connection(address: fixture.bus.address)
        final class Replies { var items: [[DBusValue]] = [] }
        let replies = Replies()
        kill(pid, SIGSTOP)
        for _ in 0..<8 {
            try caller.callAsync(
                destination: busName, path: objectPath, interface: interfaceName, member: "Increment",
                arguments: [], timeoutMilliseconds: 20_000
            ) { result in
                replies.items.append((try? result.get()) ?? [])
            }
        }
        // The bus has handed the calls over while the daemon cannot read them: a round trip to the
        // bus on the same connection, behind them.
        try caller.roundTripToBus()
        kill(pid, SIGCONT)
        let loop = EventLoop()
        loop.add(caller)
        #expect(
            waitUntil(timeout: 20) {
                loop.run(seconds: 0.05); return replies.items.count == 8
            })
        let expected: [[DBusValue]] =
            (1...4).map { [.uint32(UInt32($0)), .int32(Int32(20 + 20 * $0)), .boolean(false)] }
            + Array(repeating: [.uint32(4), .int32(100), .boolean(true)], count: 4)
        #expect(replies.items == expected)
        #expect(savedSize(fixture.stateFile) == 100)
        let after = savedSlots(fixture.stateFile).compactMap { $0 }.map(\.sequence).max() ?? 0
        #expect(after - before < 4, "4 commits took \(after - before) writes")
        loop.remove(caller)
    }
}
