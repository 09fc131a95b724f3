import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import SnapSettings
import TestSupport

/// Registration over the life of the buses: registry restarts, a late accessibility bus, focus
/// requests and announcements.
@Suite("Accessible slider lifecycle", .serialized)
struct SliderLifecycleTests {
    @Test("a restarted registry gets exactly one new Embed, and the application appears once")
    func registryRestart() throws {
        let fixture = try SliderFixture()
        let monitor = try ChildProcess(
            "dbus-monitor",
            [
                "--address", fixture.stack.address,
                "type='method_call',interface='org.a11y.atspi.Socket',member='Embed'"
            ],
            environment: fixture.stack.environment)
        defer { monitor.terminate() }
        #expect(
            waitUntil(timeout: 5) {
                monitor.stdout.contains("NameAcquired") || monitor.stdout.contains("NameLost")
            },
            "dbus-monitor is watching: \(monitor.stdout) \(monitor.stderr)")
        fixture.stack.killRegistry()
        #expect(
            try fixture.client.selector("Increment") == [.uint32(3), .int32(80), .boolean(false)],
            "D-Bus works without a registry")
        try fixture.stack.startRegistry()
        let info = try fixture.python("inspect_slider.py")
        #expect(info.int("apps") == 1)
        #expect(
            waitUntil(timeout: 5) {
                monitor.stdout.components(separatedBy: "member=Embed").count - 1 >= 1
            })
        Thread.sleep(forTimeInterval: 0.5)  // a second, duplicate Embed would arrive right behind the first
        #expect(
            monitor.stdout.components(separatedBy: "member=Embed").count - 1 == 1, "\(monitor.stdout)")
        #expect(
            try fixture.python("inspect_slider.py").int("apps") == 1, "not duplicated in the desktop")
        // The slider still works through the new registry's desktop.
        let act = try fixture.python("act.py", ["do:0"])
        #expect((act["steps"] as? [[String: Any]])?.first?.double("value") == 4)
        #expect(try fixture.client.selector("Decrement") == [.uint32(3), .int32(80), .boolean(false)])
    }

    @Test(
        "started before any accessibility bus: serves D-Bus, logs one line, joins when org.a11y.Bus appears"
    )
    func lateAccessibilityBus() throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let client = try Connection(address: bus.address)
        let daemon = try startSnapsized([], environment: bus.environment)
        defer { daemon.terminate() }
        func focus() -> MethodError? {
            do {
                _ = try client.call(
                    destination: selectorName, path: selectorPath, interface: selectorName,
                    member: "Focus",
                    timeoutMilliseconds: 5000)
                return nil
            } catch { return error }
        }
        // Looked for and not found (GetAddress answered with an error): only then is Focus refused,
        // and it says why. (While the bus is still being looked for, Focus waits for it instead.)
        #expect(
            waitUntil(timeout: 5) { daemon.stderr.contains("no accessibility bus") }, "\(daemon.stderr)")
        let refused = focus()
        #expect(refused?.name == .noAccessibility)
        #expect(
            refused?.message.contains("No accessibility bus is running") == true,
            "\(String(describing: refused))")
        let incremented = try client.call(
            destination: selectorName, path: selectorPath, interface: selectorName,
            member: "Increment", timeoutMilliseconds: 5000)
        #expect(
            incremented == [.uint32(3), .int32(80), .boolean(false)], "D-Bus keeps working without a11y")
        #expect(
            daemon.stderr.split(separator: "\n").filter { $0.contains("no accessibility bus") }.count
                == 1,
            "one line: \(daemon.stderr)")

        let stack = try AccessibilityStack(sessionEnvironment: bus.environment)
        defer { stack.stop() }
        let info = try runPython("inspect_slider.py", [], environment: stack.environment, timeout: 40)
        #expect(info.int("apps") == 1)
        #expect(
            info.object("slider").object("value").double("current") == 3, "same state as the D-Bus side")
        #expect(waitUntil(timeout: 5) { focus() == nil }, "Focus works once the slider is on the bus")
        #expect(
            daemon.stderr.split(separator: "\n").filter { $0.contains("no accessibility bus") }.count
                == 1)
        #expect(daemon.isRunning)
    }

    @Test("the accessibility bus going away does not end the daemon; it rejoins the next one")
    func accessibilityBusRestart() throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let client = try Connection(address: bus.address)
        var stack: AccessibilityStack? = try AccessibilityStack(sessionEnvironment: bus.environment)
        let daemon = try startSnapsized([], environment: bus.environment)
        defer { daemon.terminate() }
        #expect(
            try runPython("inspect_slider.py", [], environment: stack!.environment, timeout: 40).int(
                "apps") == 1)
        stack?.stop()
        stack = nil
        #expect(
            waitUntil(timeout: 5) { daemon.stderr.contains("accessibility bus went away") },
            "\(daemon.stderr)")
        let incremented = try client.call(
            destination: selectorName, path: selectorPath, interface: selectorName,
            member: "Increment", timeoutMilliseconds: 5000)
        #expect(incremented == [.uint32(3), .int32(80), .boolean(false)], "still serving D-Bus")
        let second = try AccessibilityStack(sessionEnvironment: bus.environment)
        defer { second.stop() }
        let info = try runPython("inspect_slider.py", [], environment: second.environment, timeout: 40)
        #expect(info.int("apps") == 1)
        #expect(info.object("slider").object("value").double("current") == 3)
        #expect(daemon.isRunning)
    }

    @Test(
        "focus only on request, given up when another application takes focus; announcements coalesced, focused or not"
    )
    func focusAndAnnouncements() throws {
        let fixture = try SliderFixture()
        let listener = try EventListener(environment: fixture.stack.environment)
        let announcement = "object:announcement"
        let focus = "object:state-changed:focused"
        // A burst of 40 steps: announced at its first step and with the final value. (When exactly is
        // SpeakerTests' business, on a hand-driven clock; a loaded machine may pause mid-burst.)
        let burst = Date()
        for i in 0..<40 { try fixture.client.selector(i % 3 == 2 ? "Decrement" : "Increment") }
        let burstSeconds = Date().timeIntervalSince(burst)
        let finalText = try fixture.client.selectorProperty("ValueText")?.asString
        #expect(
            waitUntil(timeout: 10) { listener.events(announcement).last?.string("text") == finalText },
            "the final value was not announced: \(listener.events(announcement))")
        let announced = listener.events(announcement)
        // Throttled: the first at once, then at most one per window (SpeechTiming.window), the final one after it.
        #expect(
            announced.count <= 2 + Int(burstSeconds / SpeechTiming.window),
            "\(announced.count) announcements in a \(burstSeconds) s burst")
        #expect(listener.events(focus).isEmpty)
        #expect(
            !(try fixture.python("inspect_slider.py").object("slider").strings("states").contains(
                "focused")))

        try fixture.client.selector("Focus")
        let focused = listener.waitFor(focus, count: 1)
        #expect(focused.first?.int("detail1") == 1 && focused.first?.string("source") == "Circle size")
        #expect(
            try fixture.python("inspect_slider.py").object("slider").strings("states").contains(
                "focused"))
        // An announcement listener is registered (listen.py), as Orca 45+ does; but while focused (in
        // its active frame, which Orca 48 keeps as its window) the value event is what Orca speaks:
        // no announcement then, or the value would be said twice.
        let before = listener.events(announcement).count
        let values = listener.events("object:property-change:accessible-value").count
        try fixture.client.selector("SetIndex", [.uint32(0)])
        listener.waitFor("object:property-change:accessible-value", count: values + 1)
        // Twice the quiet moment after the speaker's window, for a loaded machine: a held text would be out by now.
        Thread.sleep(forTimeInterval: 2 * SpeechTiming.quiet)
        #expect(listener.events(announcement).count == before, "\(listener.events(announcement))")

        // Another application's object takes focus: the slider says it lost focus.
        _ = try fixture.python("emit_focus.py")
        let events = listener.waitFor(focus, count: 2)
        #expect(
            events.count == 2 && events.last?.int("detail1") == 0
                && events.last?.string("source") == "Circle size",
            "\(events)")
        #expect(
            !(try fixture.python("inspect_slider.py").object("slider").strings("states").contains(
                "focused")))
        // Focus() takes it again.
        try fixture.client.selector("Focus")
        #expect(listener.waitFor(focus, count: 3).last?.int("detail1") == 1)
    }

    @Test(
        "announcement while a screen reader listens for it, else the status bar's notification; the view follows the registry"
    )
    func mechanismFollowsListeners() throws {
        let fixture = try SliderFixture()
        let showing = "object:state-changed:showing", announcement = "object:announcement"
        // Orca 43's kind of listener: no announcements registered.
        let notifications = try EventListener(environment: fixture.stack.environment, types: [showing])
        try fixture.client.selector("Increment")
        let shown = notifications.waitFor(showing, count: 1)
        #expect(
            shown.first?.string("role") == "notification" && shown.first?.string("text") == "80 points"
                && shown.first?.int("detail1") == 1, "\(shown)")

        // Orca 45+'s kind starts: the next change is an announcement, and no notification.
        let announcements = try EventListener(
            environment: fixture.stack.environment, types: [announcement])
        try fixture.client.selector("Increment")
        #expect(announcements.waitFor(announcement, count: 1).first?.string("text") == "100 points")
        // The limit too, once.
        try fixture.client.selector("Increment")
        #expect(
            announcements.waitFor(announcement, count: 2).last?.string("text")
                == "100 points, largest size")
        Thread.sleep(forTimeInterval: 2 * SpeechTiming.quiet)  // past the speaker's window: a held text would be out
        #expect(
            notifications.events(showing).count == 1, "no notification while announcements are heard")
        #expect(announcements.events(announcement).count == 2)

        // It stops (the registry deregisters it): back to the notification.
        announcements.child.closeStdin()
        #expect(announcements.child.terminate(timeout: 10) == 0 || !announcements.child.isRunning)
        #expect(
            waitUntil(timeout: 10) {
                let reply = try? run(
                    "gdbus",
                    [
                        "call", "--address", fixture.stack.address, "--dest", "org.a11y.atspi.Registry",
                        "--object-path", "/org/a11y/atspi/registry",
                        "--method", "org.a11y.atspi.Registry.GetRegisteredEvents"
                    ],
                    environment: fixture.stack.environment, timeout: 5)
                return reply.map { !$0.stdout.contains("Announcement") } ?? false
            })
        try fixture.client.selector("Decrement")
        #expect(notifications.waitFor(showing, count: 2).last?.string("text") == "80 points")
    }

    @Test("--announce never sends no announcements; value events still flow")
    func announceNever() throws {
        let fixture = try SliderFixture(daemonArguments: ["--announce", "never"])
        let listener = try EventListener(environment: fixture.stack.environment)
        try fixture.client.selector("Increment")
        try fixture.client.selector("Increment")
        listener.waitFor("object:property-change:accessible-value", count: 2)
        Thread.sleep(forTimeInterval: 2 * SpeechTiming.quiet)  // past the speaker's window: a held text would be out
        #expect(listener.events("object:property-change:accessible-value").count == 2)
        #expect(listener.events("object:announcement").isEmpty)
    }

    @Test("--no-accessibility: no slider, Focus answers NoAccessibility")
    func noAccessibility() throws {
        let bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
        let stack = try AccessibilityStack(sessionEnvironment: bus.environment)
        defer { stack.stop() }
        let client = try Connection(address: bus.address)
        let daemon = try startSnapsized(["--no-accessibility"], environment: stack.environment)
        defer { daemon.terminate() }
        var error: MethodError?
        do {
            _ = try client.call(
                destination: selectorName, path: selectorPath, interface: selectorName, member: "Focus",
                timeoutMilliseconds: 5000)
        } catch let e { error = e }
        #expect(error?.name == .noAccessibility)
        #expect(
            error?.message.contains("started with --no-accessibility") == true,
            "\(String(describing: error))")
        let count = try run(
            systemPython,
            [
                "-c",
                "import sys; sys.path.insert(0, '\(scriptsDirectory)'); "
                    + "from atspi_common import apps_named; print(len(apps_named('snapsize')))"
            ],
            environment: pythonEnvironment(stack.environment))
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(count)")
    }
}

/// dogtail (python3-dogtail) on the same private desktop.
@Suite("Accessible slider through dogtail")
struct DogtailTests {
    @Test("dogtail finds the slider by role and name and sets its value")
    func findAndSet() throws {
        let fixture = try SliderFixture()
        // dogtail refuses to run unless it believes a11y is on: the GSettings key (not set on this
        // private desktop) or this variable, which nothing here loads modules from.
        var environment = fixture.stack.environment
        environment["GTK_MODULES"] = "gail:atk-bridge"
        let result = try runPython("dogtail_set.py", ["4"], environment: environment, timeout: 60)
        #expect(result.string("found") == "Circle size")
        #expect(result.string("role") == "slider")
        #expect(result.double("before") == 2)
        #expect(result.double("after") == 4)
        #expect(try fixture.client.selectorProperty("SelectedIndex") == .uint32(4))
    }
}
