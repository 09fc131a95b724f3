import Foundation
import Testing
import DBusKit
import TestSupport

/// The registry and the speech choice after faults: a registry slow to answer at start, and a
/// reload that turns `changes` on. Through the real daemon, registry and pyatspi listener.
@Suite("Registry slow or reloaded: the speech choice follows it", .serialized)
struct RegistryFaultTests {
    static let announcement = "object:announcement"
    static let showing = "object:state-changed:showing"

    /// The daemon's registry-query timeout in these tests (SNAPSIZE_TEST_REGISTRY_TIMEOUT, debug
    /// builds), instead of `EventListeners.queryTimeout`'s 10 s.
    static let queryTimeout = 1.0

    @Test(
        "a registry that answers nothing for longer than the query's timeout at start: the slider is registered and changes are announced once it answers"
    )
    func slowRegistryAtStart() throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let stack = try AccessibilityStack(sessionEnvironment: bus.environment)
        defer { stack.stop() }
        // An announcement listener, as Orca 45+ registers one, before the registry stalls.
        var environment = stack.environment
        environment["LISTEN_BEFORE_SLIDER"] = "1"
        let listener = try EventListener(
            environment: environment, types: [Self.announcement, Self.showing])
        stack.stopRegistry()
        var daemonEnvironment = stack.environment
        daemonEnvironment["SNAPSIZE_TEST_REGISTRY_TIMEOUT"] = "\(Self.queryTimeout)"
        let daemon = try startSnapsized([], environment: daemonEnvironment)
        defer { daemon.terminate() }
        // Until the daemon's query to the registry has timed out (it says so once), however long
        // that takes on a loaded machine: the registry answers nothing meanwhile.
        #expect(
            waitUntil(timeout: 30, interval: 0.05) {
                daemon.stderr.contains("the accessibility registry did not say")
            },
            "the query to the stopped registry never timed out: \(daemon.stderr)")
        stack.resumeRegistry()
        #expect(
            waitUntil(timeout: 20, interval: 0.2) {
                (try? runPython("count_apps.py", [], environment: stack.environment, timeout: 20).int(
                    "apps")) == 1
            }, "the slider never got into the desktop: \(daemon.stderr)")
        #expect(
            waitUntil(timeout: 10, interval: 0.2) {
                Self.rootParent(stack)?.first?.asString?.hasPrefix(":") == true
            },
            "the root's Parent is not the registry's desktop (the Embed answer was lost): \(String(describing: Self.rootParent(stack)))"
        )
        let client = try Connection(address: bus.address)
        // A few seconds for the listener query's retry to be answered; each change is spoken.
        var announced: [[String: Any]] = []
        for _ in 0..<10 where announced.isEmpty {
            _ = try client.selector("Increment")
            announced = listener.waitFor(Self.announcement, count: 1, timeout: 2)
        }
        #expect(
            !announced.isEmpty,
            "never announced; notifications: \(listener.events(Self.showing)); \(daemon.stderr)")
        #expect(
            try runPython("count_apps.py", [], environment: stack.environment, timeout: 20).int("apps")
                == 1,
            "registered once, not once per attempt")
        #expect(daemon.isRunning)
    }

    /// The `Parent` of the first application's root in the registry's desktop, as (bus name, path).
    static func rootParent(_ stack: AccessibilityStack) -> [DBusValue]? {
        guard let a11y = try? Connection(address: stack.address) else { return nil }
        defer { a11y.close() }
        let root = ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!
        guard
            let children = try? a11y.call(
                destination: "org.a11y.atspi.Registry", path: root,
                interface: "org.a11y.atspi.Accessible", member: "GetChildren",
                timeoutMilliseconds: 5000),
            let app = children.first?.asArray?.first?.asStructure?.first?.asString,
            let reply = try? a11y.call(
                destination: app, path: root, interface: "org.freedesktop.DBus.Properties",
                member: "Get", arguments: [.string("org.a11y.atspi.Accessible"), .string("Parent")],
                timeoutMilliseconds: 5000)
        else { return nil }
        return reply.first?.asVariant?.asStructure ?? reply.first?.asStructure
    }

    @Test(
        "announce reloaded from notification to changes: the registry's announcement listener is followed"
    )
    func reloadToChanges() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/config"
        try "announce=notification\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fixture = try SliderFixture(daemonArguments: ["--config", config])
        let listener = try EventListener(
            environment: fixture.stack.environment, types: [Self.announcement, Self.showing])
        try fixture.client.selector("Increment")
        #expect(
            listener.waitFor(Self.showing, count: 1).last?.string("role") == "notification",
            "notification mode")
        try "announce=changes\n".write(toFile: config, atomically: true, encoding: .utf8)
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        kill(daemon.pid, SIGHUP)
        #expect(
            waitUntil(timeout: 10) { daemon.stderr.contains("announce notification -> changes") },
            "\(daemon.stderr)")
        // As if started with `changes`: the listener wants announcements, so the next change is one.
        var announced: [[String: Any]] = []
        for _ in 0..<5 where announced.isEmpty {
            try fixture.client.selector("Decrement")
            announced = listener.waitFor(Self.announcement, count: 1, timeout: 2)
        }
        #expect(
            announced.last?.string("text") != nil, "never announced after the reload: \(listener.lines)")
    }
}
