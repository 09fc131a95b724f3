import Foundation
import Testing
import DBusKit
import TestSupport

/// at-spi-bus-launcher dies and a new one starts, while the bus the old one started lives on as
/// an orphan (or hangs): the slider moves to the new launcher's bus, where screen readers look.
@Suite("Reliability: at-spi-bus-launcher replaced, its bus left behind", .serialized)
struct LauncherFaultTests {
    @Test("the launcher SIGKILLed with its bus left running (or hung), a new launcher started: the slider moves to the new bus", arguments: [false, true])
    func orphanedBus(hung: Bool) throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let first = try AccessibilityStack(sessionEnvironment: bus.environment)
        let orphan = try #require(first.busPID, "the first launcher's dbus-daemon")
        defer {
            kill(orphan, SIGCONT)
            kill(orphan, SIGTERM)
            first.stop()
        }
        let daemon = try startSnapsized(["--no-state"], environment: bus.environment, busAddress: bus.address)
        defer { daemon.terminate() }
        let old = try Connection(address: first.address)
        #expect(waitUntil(timeout: 20, interval: 0.05) { (try? connections(of: daemon.pid, on: old))?.count == 1 },
                "snapsized never joined the first accessibility bus")
        // The launcher dies; its bus does not (it is not told).
        kill(first.launcher.pid, SIGKILL)
        let session = try Connection(address: bus.address)
        #expect(waitUntil(timeout: 10, interval: 0.05) { (try? session.nameHasOwner("org.a11y.Bus")) == false })
        if hung { kill(orphan, SIGSTOP) }
        // A new launcher (its own runtime folder, as a new login's would be) on the same session bus.
        var environment = bus.environment
        environment["XDG_RUNTIME_DIR"] = try makeTemporaryDirectory()
        let second = try AccessibilityStack(sessionEnvironment: environment)
        defer { second.stop() }
        let new = try Connection(address: second.address)
        #expect(waitUntil(timeout: 20, interval: 0.05) { (try? connections(of: daemon.pid, on: new))?.count == 1 },
                "snapsized never joined the new launcher's bus: \(daemon.stderr)")
        if !hung {
            #expect(waitUntil(timeout: 10, interval: 0.05) { (try? connections(of: daemon.pid, on: old))?.isEmpty == true },
                    "snapsized is still on the orphaned bus")
        }
        #expect(try runPython("inspect_slider.py", [], environment: second.environment, timeout: 40).int("apps") == 1)
        // Focus goes to the slider on the bus screen readers use now.
        let focused = try run("gdbus", ["call", "--session", "--dest", selectorName, "--object-path", selectorPath.rawValue,
                                        "--method", "\(selectorName).Focus"], environment: bus.environment, timeout: 10)
        #expect(focused.status == 0, "\(focused.stderr)")
        #expect(daemon.isRunning)
    }
}

/// The unique names `pid` holds on the bus of `probe`.
private func connections(of pid: pid_t, on probe: Connection) throws -> [String] {
    let bus = ObjectPath(rawValue: "/org/freedesktop/DBus")!
    let names = try probe.call(destination: "org.freedesktop.DBus", path: bus, interface: "org.freedesktop.DBus",
                               member: "ListNames", timeoutMilliseconds: 2000).first?.asStringArray ?? []
    return names.filter { $0.hasPrefix(":") }.filter { name in
        let owner = try? probe.call(destination: "org.freedesktop.DBus", path: bus, interface: "org.freedesktop.DBus",
                                    member: "GetConnectionUnixProcessID", arguments: [.string(name)],
                                    timeoutMilliseconds: 2000).first?.asUInt32
        return owner == UInt32(pid)
    }
}
