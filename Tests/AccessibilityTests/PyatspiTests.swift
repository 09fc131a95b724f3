import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// The slider as pyatspi (libatspi underneath) sees and drives it, on a private desktop per test.
@Suite("Accessible slider through pyatspi", .serialized)
struct PyatspiTests {
    @Test("the application and its slider have the documented role, name, states, interfaces and values")
    func appearance() throws {
        let fixture = try SliderFixture()
        let info = try fixture.python("inspect_slider.py")
        #expect(info.int("apps") == 1, "registered exactly once")
        let app = info.object("app"), slider = info.object("slider"), value = slider.object("value")
        #expect(app.string("name") == "snapsize")
        #expect(app.int("role") == 75 && app.string("roleName") == "application")
        #expect(app.int("childCount") == 2, "the frame, then the status bar")
        // The slider's window: a frame with no name, active only while the slider is focused.
        let frame = info.object("frame")
        #expect(
            frame.string("roleName") == "frame" && frame.string("name") == ""
                && frame.int("indexInParent") == 0)
        #expect(frame.strings("states") == ["enabled", "sensitive", "showing", "visible"])
        #expect((frame["children"] as? [[String: Any]])?.map { $0.string("roleName") } == ["slider"])
        // Where changes are spoken to Orca 43 (StatusBar.swift): a notification in a status bar.
        let statusBar = info.object("statusBar")
        let notification = (statusBar["children"] as? [[String: Any]])?.first ?? [:]
        let label = (notification["children"] as? [[String: Any]])?.first ?? [:]
        #expect(statusBar.string("roleName") == "status bar" && statusBar.int("indexInParent") == 1)
        #expect(
            notification.string("roleName") == "notification"
                && notification.string("parentRole") == "status bar")
        #expect(notification.strings("states") == ["showing", "visible"])
        #expect(label.string("roleName") == "label" && label.string("parentRole") == "notification")
        #expect(app.string("parentRole") == "desktop frame")
        #expect(app.string("toolkitName") == "snapsize")
        #expect(app.string("version") == "0.1.0")
        #expect(app.string("atspiVersion") == "2.1")
        #expect(slider.string("name") == "Circle size")
        #expect(slider.string("description") == "One of 20, 40, 60, 80 or 100 points")
        #expect(slider.int("role") == 51 && slider.string("roleName") == "slider")
        #expect(
            slider.strings("states") == [
                "enabled", "focusable", "horizontal", "sensitive", "showing", "visible"
            ])
        #expect(slider.strings("interfaces") == ["Accessible", "Action", "Component", "Value"])
        #expect(
            slider["attributes"] as? [String: String] == [
                "valuetext": "60 points", "size": "60", "committed-size": "60"
            ])
        #expect(slider.int("indexInParent") == 0)
        #expect(slider.string("parentName") == "")
        #expect(slider.int("childCount") == 0)
        #expect(value.double("minimum") == 0 && value.double("maximum") == 4)
        #expect(value.double("increment") == 1)
        #expect(value.double("current") == 2)
        #expect(value.string("text") == "60 points")
        let actions = slider["actions"] as? [[String: String]] ?? []
        #expect(actions.map { $0["name"] } == ["increment", "decrement"])
        #expect(actions.map { $0["localizedName"] } == ["Larger", "Smaller"])
        #expect(actions.allSatisfy { !($0["description"] ?? "").isEmpty })
        // No place on the screen, for a magnifier (ComponentInterface); its size all the same.
        #expect(
            slider.object("extents")["error"] != nil && slider.object("windowExtents")["error"] != nil,
            "\(slider)")
        #expect(slider["size"] as? [Int] == [336, 40])
    }

    @Test("writing CurrentValue 3.6 commits index 4 through the core, and the D-Bus side shows it")
    func valueWrite() throws {
        let fixture = try SliderFixture()
        let monitor = try ChildProcess(
            "dbus-monitor",
            [
                "--address", fixture.bus.address,
                "type='signal',interface='\(selectorName)',member='Committed'"
            ],
            environment: fixture.bus.environment)
        defer { monitor.terminate() }
        waitUntil(timeout: 5) {
            monitor.stdout.contains("NameAcquired") || monitor.stdout.contains("signal")
        }
        let result = try fixture.python("act.py", ["set:3.6"])
        let step = (result["steps"] as? [[String: Any]])?.first ?? [:]
        #expect(step.double("value") == 4)
        #expect(step.string("text") == "100 points")
        #expect(try fixture.client.selectorProperty("SelectedIndex") == .uint32(4))
        #expect(try fixture.client.selectorProperty("ValueText") == .string("100 points"))
        #expect(
            waitUntil(timeout: 5) {
                monitor.stdout.contains("member=Committed") && monitor.stdout.contains("uint32 4")
            },
            "Committed(4, 100) on the session bus: \(monitor.stdout)")
        // Beyond the ends: clamped, ties away from zero.
        let more = try fixture.python("act.py", ["set:-7", "set:0.5", "set:99"])
        #expect((more["steps"] as? [[String: Any]])?.map { $0.double("value") } == [0, 1, 4])
        // Recorded as accessible changes, by the writer as the accessibility bus names it.
        let entries = try HistoryEntry.list(try fixture.client.selector("GetHistory", [.uint32(10)]))
        #expect(
            entries.map(\.kind) == [.accessible, .accessible, .accessible, .accessible], "\(entries)")
        #expect(
            entries.map { [$0.from, $0.to] } == [[60, 100], [100, 20], [20, 40], [40, 100]], "\(entries)"
        )
        let writers = [result, more].map { $0["pid"] as? Int ?? -1 }
        for (entry, pid) in zip(entries, [writers[0], writers[1], writers[1], writers[1]]) {
            #expect(
                entry.by.uniqueName.hasPrefix(":") && Int(entry.by.pid) == pid
                    && entry.by.command == "python3 act.py", "\(entry)")
        }
        // Writers that exit the moment their write is answered are named too: their reply waited
        // until the accessibility bus had told the daemon who they are.
        var quick: [Int] = []
        for value in [0, 4, 1] {
            quick.append(try fixture.python("act.py", ["once:\(value)"])["pid"] as? Int ?? -1)
        }
        let last = try HistoryEntry.list(try fixture.client.selector("GetHistory", [.uint32(3)]))
        #expect(last.map { [$0.from, $0.to] } == [[100, 20], [20, 100], [100, 40]], "\(last)")
        #expect(
            last.map { Int($0.by.pid) } == quick
                && last.allSatisfy { $0.by.command == "python3 act.py" }, "\(last)")
    }

    @Test("a value write or an action during an open preview is refused and changes nothing")
    func refusedDuringPreview() throws {
        let fixture = try SliderFixture()
        let shown = try fixture.client.selector("Preview", [.double(12)])  // the left end: index 0, owned by our client
        #expect(shown == [.uint32(0), .int32(20)])
        let result = try fixture.python("act.py", ["set:4", "do:0", "do:1"])
        let steps = result["steps"] as? [[String: Any]] ?? []
        #expect(steps.map { $0.double("value") } == [0, 0, 0], "the shown (preview) index stays")
        #expect(steps.dropFirst().map { $0["result"] as? Bool } == [false, false])
        #expect(try fixture.client.selectorProperty("SelectedIndex") == .uint32(2))
        #expect(try fixture.client.selectorProperty("Previewing") == .boolean(true))
        try fixture.client.selector("Cancel")
        let after = try fixture.python("act.py", ["do:0"])
        #expect((after["steps"] as? [[String: Any]])?.first?.double("value") == 3)
    }

    @Test("both actions step the committed selection and report false at the ends")
    func actions() throws {
        let fixture = try SliderFixture()
        let result = try fixture.python(
            "act.py", ["do:0", "do:0", "do:0", "do:1", "do:1", "do:1", "do:1", "do:1", "do:7"])
        let steps = result["steps"] as? [[String: Any]] ?? []
        #expect(
            steps.map { $0["result"] as? Bool } == [
                true, true, false, true, true, true, true, false, false
            ])
        #expect(steps.map { $0.double("value") } == [3, 4, 4, 3, 2, 1, 0, 0, 0])
        #expect(steps.map { $0.string("text") ?? "" }.last == "20 points")
        #expect(try fixture.client.selectorProperty("SelectedIndex") == .uint32(0))
        // Recorded as accessible changes (the six that moved), by the program that acted.
        let entries = try HistoryEntry.list(try fixture.client.selector("GetHistory", [.uint32(10)]))
        #expect(
            entries.map { [$0.from, $0.to] } == [
                [60, 80], [80, 100], [100, 80], [80, 60], [60, 40], [40, 20]
            ], "\(entries)")
        #expect(
            entries.allSatisfy {
                $0.kind == .accessible && Int($0.by.pid) == result["pid"] as? Int
                    && $0.by.command == "python3 act.py"
            },
            "\(entries)")
    }

    @Test("one accessible-value event per change of the shown index, none when it does not change")
    func valueEvents() throws {
        let fixture = try SliderFixture()
        let listener = try EventListener(environment: fixture.stack.environment)
        let value = "object:property-change:accessible-value"
        // Each operation is followed by the next expected event, so a spurious event from a
        // no-change operation would show up out of order in the list.
        _ = try fixture.python("act.py", ["do:0"]); listener.waitFor(value, count: 1)  // 2 -> 3
        _ = try fixture.python("act.py", ["do:0", "do:0"]); listener.waitFor(value, count: 2)  // 3 -> 4, then at the limit
        _ = try fixture.python("act.py", ["set:0", "do:1"]); listener.waitFor(value, count: 3)  // 4 -> 0, then at the limit
        try fixture.client.selector("Preview", [.double(330)]); listener.waitFor(value, count: 4)  // shown 0 -> 4
        try fixture.client.selector("Preview", [.double(329)])  // still 4: nothing
        try fixture.client.selector("Cancel"); listener.waitFor(value, count: 5)  // shown back to 0
        try fixture.client.selector("Cancel")  // nothing open: nothing
        try fixture.client.selector("SetIndex", [.uint32(2)]); listener.waitFor(value, count: 6)  // 0 -> 2
        try fixture.client.selector("SetIndex", [.uint32(2)])  // same: nothing
        try fixture.client.selector("Commit", [.double(12)]); listener.waitFor(value, count: 7)  // direct commit 2 -> 0
        Thread.sleep(forTimeInterval: 0.5)  // let any stray event arrive before counting
        let events = listener.events(value)
        #expect(events.map { $0.double("value") } == [3, 4, 0, 4, 0, 2, 0])
        #expect(events.allSatisfy { $0.string("source") == "Circle size" })
        #expect(
            listener.events("object:state-changed:focused").isEmpty,
            "the slider never claims focus by itself")
    }

    @Test(
        "SIGHUP with a new label and unit: pyatspi hears the name and description change and reads the new words"
    )
    func reloadedWords() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/config"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        let fixture = try SliderFixture(daemonArguments: ["--config", config])
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        let name = "object:property-change:accessible-name",
            description = "object:property-change:accessible-description"
        let listener = try EventListener(
            environment: fixture.stack.environment, types: [name, description])
        try "label = Brush\nunit = dots\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        #expect(listener.waitFor(name, count: 1).first?.string("source") == "Brush", "\(daemon.stderr)")
        #expect(listener.waitFor(description, count: 1).count == 1, "\(daemon.stderr)")
        let slider = try fixture.python("inspect_slider.py").object("slider")
        #expect(slider.string("name") == "Brush")
        #expect(slider.string("description") == "One of 20, 40, 60, 80 or 100 dots")
        #expect(slider.object("value").string("text") == "60 dots")
    }

    @Test(
        "SIGHUP with a new list and track: pyatspi hears the description and value change and reads the new maximum and value"
    )
    func reloadedList() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/config"
        try "sizes = 20,40,60,80,100\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fixture = try SliderFixture(daemonArguments: ["--config", config])
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        let value = "object:property-change:accessible-value",
            description = "object:property-change:accessible-description"
        let listener = try EventListener(
            environment: fixture.stack.environment, types: [value, description])
        try "sizes = 10,30,50,70\ntrack-width = 200\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        // 60 maps to 70 (index 3): 50 and 70 are equally near, and the core picks the larger.
        #expect(listener.waitFor(value, count: 1).first?.double("value") == 3, "\(daemon.stderr)")
        #expect(listener.waitFor(description, count: 1).count == 1, "\(daemon.stderr)")
        let slider = try fixture.python("inspect_slider.py").object("slider"),
            read = slider.object("value")
        #expect(
            read.double("minimum") == 0 && read.double("maximum") == 3 && read.double("increment") == 1)
        #expect(read.double("current") == 3 && read.string("text") == "70 points")
        #expect(slider.string("description") == "One of 10, 30, 50 or 70 points")
        #expect(slider["size"] as? [Int] == [200, 40])
        #expect(try fixture.client.selectorProperty("SelectedSize") == .int32(70))
    }
}
