import Foundation
import Testing
import DBusKit
import TestSupport

/// A stuck accessibility bus (its dbus-daemon stopped with SIGSTOP, the real registry on it) must
/// never stop the session side, the daemon's memory, or its exit (issue 13).
@Suite("Accessible side stuck", .serialized)
struct StuckBusTests {
    /// A session bus, an accessibility stack and snapsized saving its state in the bus's home.
    final class Desktop {
        let bus: PrivateSessionBus
        let stack: AccessibilityStack
        var daemon: ChildProcess!
        let client: Connection
        var stateFile: String { bus.directory + "/home/.local/state/snapsize/state" }

        init(stopBusFirst: Bool = false, arguments: [String] = []) throws {
            bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
            stack = try AccessibilityStack(sessionEnvironment: bus.environment)
            client = try Connection(address: bus.address)
            if stopBusFirst { stack.stopBus() }
            daemon = try startSnapsized(arguments, environment: stack.environment, busAddress: bus.address)
            if !stopBusFirst { _ = try runPython("inspect_slider.py", [], environment: stack.environment, timeout: 40) }
        }

        deinit {
            daemon.terminate()
            stack.stop()
            bus.stop()
        }

        @discardableResult
        func call(_ member: String, _ arguments: [DBusValue] = [], timeout: Int32 = 5000) throws(MethodError) -> [DBusValue] {
            try client.call(destination: selectorName, path: selectorPath, interface: selectorName, member: member,
                            arguments: arguments, timeoutMilliseconds: timeout)
        }
    }

    @Test("SIGTERM with the accessibility bus stopped after a burst: exits within seconds, the size on disk")
    func terminateWhileStuck() throws {
        let desktop = try Desktop()
        desktop.stack.stopBus()
        let changes = stressing ? 3_000 : 600
        for number in 0..<changes { try desktop.call(number % 3 == 2 ? "Decrement" : "Increment") }
        let committed = try desktop.call("SetIndex", [.uint32(1)])
        let signalled = Date()
        kill(desktop.daemon.pid, SIGTERM)
        let exited = waitUntil(timeout: 5) { !desktop.daemon.isRunning }
        let elapsed = Date().timeIntervalSince(signalled)
        #expect(exited, "still running 5 s after SIGTERM")
        #expect(desktop.daemon.forceKill() == 0)
        #expect(try String(contentsOfFile: desktop.stateFile, encoding: .utf8) == "size=\(committed.last?.asInt32 ?? -1)\n")
        print("stuck accessibility bus: exited \(Int(elapsed * 1000)) ms after SIGTERM, following \(changes) changes")
    }
}
