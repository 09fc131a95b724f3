import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// at-spi-bus-launcher dies and a new one starts, while the bus the old one started lives on as
/// an orphan (or hangs): the slider moves to the new launcher's bus, where screen readers look.
/// A bus that hangs with no new launcher: Focus says so instead of success.
@Suite("Reliability: at-spi-bus-launcher replaced, its bus left behind or hung", .serialized)
struct LauncherFaultTests {
    @Test(
        "the launcher SIGKILLed with its bus left running (or hung), a new launcher started: the slider moves to the new bus",
        arguments: [false, true])
    func orphanedBus(hung: Bool) throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let first = try AccessibilityStack(sessionEnvironment: bus.environment)
        let orphan = try #require(first.busPID, "the first launcher's dbus-daemon")
        defer {
            kill(orphan, SIGCONT)
            kill(orphan, SIGTERM)
            first.stop()
        }
        let daemon = try startSnapsized(
            ["--no-state"], environment: bus.environment, busAddress: bus.address)
        defer { daemon.terminate() }
        let old = try Connection(address: first.address)
        #expect(
            waitUntil(timeout: 20, interval: 0.05) {
                (try? connections(of: daemon.pid, on: old))?.count == 1
            },
            "snapsized never joined the first accessibility bus")
        // The launcher dies; its bus does not (it is not told).
        kill(first.launcher.pid, SIGKILL)
        let session = try Connection(address: bus.address)
        #expect(
            waitUntil(timeout: 10, interval: 0.05) {
                (try? session.nameHasOwner("org.a11y.Bus")) == false
            })
        if hung { kill(orphan, SIGSTOP) }
        // A new launcher (its own runtime folder, as a new login's would be) on the same session bus.
        var environment = bus.environment
        environment["XDG_RUNTIME_DIR"] = try makeTemporaryDirectory()
        let second = try AccessibilityStack(sessionEnvironment: environment)
        defer { second.stop() }
        let new = try Connection(address: second.address)
        #expect(
            waitUntil(timeout: 20, interval: 0.05) {
                (try? connections(of: daemon.pid, on: new))?.count == 1
            },
            "snapsized never joined the new launcher's bus: \(daemon.stderr)")
        if !hung {
            #expect(
                waitUntil(timeout: 10, interval: 0.05) {
                    (try? connections(of: daemon.pid, on: old))?.isEmpty == true
                },
                "snapsized is still on the orphaned bus")
        }
        #expect(
            try runPython("inspect_slider.py", [], environment: second.environment, timeout: 40).int(
                "apps") == 1)
        // Focus goes to the slider on the bus screen readers use now.
        let focused = try run(
            "gdbus",
            [
                "call", "--session", "--dest", selectorName, "--object-path", selectorPath.rawValue,
                "--method", "\(selectorName).Focus"
            ], environment: bus.environment, timeout: 10)
        #expect(focused.status == 0, "\(focused.stderr)")
        #expect(daemon.isRunning)
    }

    @Test(
        "the accessibility bus hangs and no new launcher comes: Focus fails with AccessibilityNotAnswering, and works again once it resumes"
    )
    func hungBusFocus() throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let stack = try AccessibilityStack(sessionEnvironment: bus.environment)
        let hung = try #require(stack.busPID, "the launcher's dbus-daemon")
        defer {
            kill(hung, SIGCONT)
            stack.stop()
        }
        let daemon = try startSnapsized(
            ["--no-state"], environment: bus.environment, busAddress: bus.address)
        defer { daemon.terminate() }
        #expect(
            try runPython("inspect_slider.py", [], environment: stack.environment, timeout: 40).int(
                "apps") == 1)
        let client = try Connection(address: bus.address)
        func focus() -> (error: MethodError?, seconds: Double) {
            let asked = Date()
            do {
                _ = try client.call(
                    destination: selectorName, path: selectorPath, interface: selectorName,
                    member: "Focus",
                    timeoutMilliseconds: 20_000)
                return (nil, Date().timeIntervalSince(asked))
            } catch {
                return (error, Date().timeIntervalSince(asked))
            }
        }
        #expect(focus().error == nil, "Focus with the bus answering")

        kill(hung, SIGSTOP)
        for round in 1...2 {
            let refused = focus()
            // A liveness bound: the daemon's own bound is 2 s; what is asserted is that it answers, and with what.
            #expect(refused.seconds < 10, "round \(round): Focus took \(refused.seconds) s")
            #expect(
                refused.error?.name == .accessibilityNotAnswering,
                "round \(round): \(String(describing: refused.error))")
            #expect(
                refused.error?.message.contains("did not answer") == true,
                "\(String(describing: refused.error))")
            print(
                "hung accessibility bus: Focus refused after \(Int(refused.seconds * 1000)) ms: \(String(describing: refused.error))"
            )
        }
        // The session side is served meanwhile, and the daemon stays on the bus (it may resume).
        #expect(
            try client.call(
                destination: selectorName, path: selectorPath, interface: selectorName,
                member: "Increment",
                timeoutMilliseconds: 5000) == [.uint32(3), .int32(80), .boolean(false)])
        #expect(
            daemon.stderr.components(separatedBy: "did not show within").count == 2,
            "logged once: \(daemon.stderr)")

        kill(hung, SIGCONT)
        #expect(
            waitUntil(timeout: 20, interval: 0.1) { focus().error == nil },
            "Focus never worked again: \(daemon.stderr)")
        #expect(daemon.stderr.contains("answers again"), "\(daemon.stderr)")
        let info = try runPython("inspect_slider.py", [], environment: stack.environment, timeout: 40)
        #expect(
            info.object("slider").strings("states").contains("focused"),
            "the slider is focused on the resumed bus")
        #expect(daemon.isRunning)
    }
}

/// The unique names `pid` holds on the bus of `probe`.
private func connections(of pid: pid_t, on probe: Connection) throws -> [String] {
    let bus = ObjectPath(rawValue: "/org/freedesktop/DBus")!
    let names =
        try probe.call(
            destination: "org.freedesktop.DBus", path: bus, interface: "org.freedesktop.DBus",
            member: "ListNames", timeoutMilliseconds: 2000
        ).first?.asStringArray ?? []
    return names.filter { $0.hasPrefix(":") }.filter { name in
        let owner = try? probe.call(
            destination: "org.freedesktop.DBus", path: bus, interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", arguments: [.string(name)],
            timeoutMilliseconds: 2000
        ).first?.asUInt32
        return owner == UInt32(pid)
    }
}
