import Foundation
import Synchronization
import Testing
@_spi(Testing) import DBusKit
import TestSupport

/// EventLoop.groupCommit: replies and signals wait for the group's end; an undone group answers
/// with the error instead and announces nothing.
@Suite("Group commit in the event loop")
struct GroupCommitLoopTests {
    /// Whether the next group ends undone, and how many groups ended; shared with the loop thread.
    final class Switch: Sendable {
        let undo = Atomic<Bool>(false)
        let ended = Atomic<Int>(0)
    }

    @Test("an undone group: its replies become the error and its signals are never sent")
    func undone() throws {
        let bus = try startBus()
        let groups = Switch()
        let address = bus.address
        let service = try LoopThread { loop in
            try TestService.start(on: loop, address: address)
            loop.groupCommit = GroupCommit(
                begin: {},
                end: {
                    groups.ended.add(1, ordering: .sequentiallyConsistent)
                    return groups.undo.load(ordering: .sequentiallyConsistent)
                        ? MethodError(.failed, "undone") : nil
                })
        }
        defer { service.stop() }
        let client = try Connection(address: bus.address)
        let watcher = try Connection(address: bus.address)
        watcher.addMatch(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        final class Seen { var labels: [DBusValue] = [] }
        let seen = Seen()
        watcher.onSignal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged") {
            signal in
            if case .array(_, let entries)? = signal.arguments.dropFirst().first {
                for case .dictEntry(_, .variant(let value)) in entries { seen.labels.append(value) }
            }
        }
        _ = try client.call(
            destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
            interface: "org.freedesktop.DBus", member: "GetId", timeoutMilliseconds: 5000)  // match in place
        func setLabel(_ text: String) throws(MethodError) {
            _ = try client.call(
                destination: TestService.busName.rawValue, path: TestService.path,
                interface: InterfaceName.properties.rawValue, member: "Set",
                arguments: [
                    .string(TestService.interface.rawValue), .string("Label"), .variant(.string(text))
                ],
                timeoutMilliseconds: 5000)
        }
        groups.undo.store(true, ordering: .sequentiallyConsistent)
        let error = methodError { () throws(MethodError) in try setLabel("undone") }
        #expect(
            error == MethodError(.failed, "undone"),
            "the reply went out before the group ended: \(String(describing: error))")
        groups.undo.store(false, ordering: .sequentiallyConsistent)
        try setLabel("kept")
        let loop = EventLoop()
        loop.add(watcher)
        #expect(
            waitUntil(timeout: 10) {
                loop.run(seconds: 0.05); return !seen.labels.isEmpty
            })
        // Signals keep their order on the bus: had the undone group's been sent, it would be first.
        #expect(seen.labels.first == .string("kept"), "seen: \(seen.labels)")
        #expect(groups.ended.load(ordering: .sequentiallyConsistent) >= 2)
        loop.remove(watcher)
    }
}
