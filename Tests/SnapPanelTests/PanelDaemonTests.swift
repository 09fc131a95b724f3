import DBusKit
import Foundation
import SizeSelectorContract
import Testing
import TestSupport

/// The panel owns no selection: keys and buttons are calls that stop at the daemon's ends, what other
/// clients do shows at once, a daemon restart is followed, a missing daemon is activated or named.
/// Screenshots check the drawing itself, in the default and the high-contrast theme.
@Suite("Panel under Xvfb: the daemon's selection", .serialized)
struct PanelDaemonTests {
    @Test(
        "keys step and stop at the ends as the daemon does; Tab reaches the buttons, insensitive at their end"
    )
    func keysAndButtons() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel()
        // The track has focus when the window opens (the first focusable widget).
        try panel.key("Right", "Right", "Right")
        #expect(desktop.daemonHas(selected: 4), "\(desktop.snapshot)")
        #expect(
            panel.shows(["selected": "4", "larger": "false", "smaller": "true"]), "\(panel.shownState)")
        #expect(panel.draws(thumb: 4))
        try panel.key("Home")
        #expect(
            desktop.daemonHas(selected: 0)
                && panel.shows(["selected": "0", "smaller": "false", "larger": "true"]))
        try panel.key("Left", "Down")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(desktop.selectedIndex == 0)
        try panel.key("Up", "End")
        #expect(desktop.daemonHas(selected: 4) && panel.draws(thumb: 4), "\(desktop.snapshot)")
        // At the largest size Larger is insensitive: Tab lands on Smaller, which steps down.
        try panel.key("Tab", "space")
        #expect(desktop.daemonHas(selected: 3), "\(desktop.snapshot)")
        // Now both are sensitive: Tab again reaches Larger.
        try panel.key("Tab", "space")
        #expect(desktop.daemonHas(selected: 4), "\(desktop.snapshot)")
        #expect(panel.count("error ") == 0, "\(panel.child.stdout)")
    }

    @Test("another client's change and preview show at once; the panel's own press is refused by name")
    func otherClients() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel()
        try desktop.client.selector("SetIndex", [.uint32(1)])
        #expect(panel.draws(thumb: 1) && panel.shows(["selected": "1"]), "\(panel.shownState)")
        // Another program's preview: the thumb moves, the circle stays, the buttons wait, the holder is named.
        let other = try Connection(address: desktop.fixture.bus.address)
        defer { other.close() }
        try other.selector("Preview", [.double(324)])
        #expect(panel.draws(thumb: 4), "\(panel.child.stdout)")
        #expect(
            panel.shows([
                "shown": "4", "selected": "1", "previewing": "true", "holder": "true",
                "smaller": "false", "larger": "false"
            ]), "\(panel.shownState)")
        // A press meanwhile: the daemon refuses (PreviewActive) and nothing moves.
        try panel.focus()
        try panel.press(at: 12)
        try panel.release()
        #expect(
            waitUntil(timeout: 10) { panel.lines.contains("error \(ErrorName.previewActive.rawValue)") },
            "\(panel.child.stdout)")
        #expect(desktop.shownIndex == 4 && desktop.selectedIndex == 1)
        try other.selector("Commit", [.double(246)])
        #expect(
            panel.draws(thumb: 3)
                && panel.shows(["selected": "3", "previewing": "false", "holder": "false"]),
            "\(panel.shownState)")
        // snapsizectl, as a key bound to it would run it.
        if let snapsizectl = productPath("snapsizectl") {
            let result = try run(snapsizectl, ["dec"], environment: desktop.environment)
            #expect(result.status == 0, "\(result)")
            #expect(panel.draws(thumb: 2) && panel.shows(["selected": "2"]), "\(panel.shownState)")
        }
    }

    @Test("a daemon restart is followed at once; a missing daemon is started by D-Bus activation")
    func restartAndActivation() throws {
        let desktop = try PanelDesktop(daemon: false, activatable: true)
        let panel = try desktop.openPanel()  // its GetAll activated snapsized
        #expect(panel.shows(["selected": "2"]))
        try desktop.client.selector("SetIndex", [.uint32(4)])
        #expect(panel.draws(thumb: 4))
        let owner = try desktop.client.call(
            destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
            interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
            arguments: [.string(SelectorBus.name.rawValue)], timeoutMilliseconds: 5000)
        let daemon = try #require(owner.first?.asUInt32)
        kill(pid_t(daemon), SIGTERM)
        #expect(
            waitUntil(timeout: 10) { panel.lines.contains("problem vanished") }, "\(panel.child.stdout)")
        // A new snapsized (not the panel's doing: started by hand) starts at 60 (no state file): shown at once.
        try desktop.fixture.start()
        let owned = Date()
        #expect(panel.shows(["selected": "2"]) && panel.draws(thumb: 2), "\(panel.child.stdout)")
        print(
            "the panel followed the restarted snapsized \(String(format: "%.3f", Date().timeIntervalSince(owned))) s after it owned its name"
        )
        #expect(panel.child.isRunning)
    }

    @Test("with no daemon and none to activate, the window says so and keeps running")
    func unreachable() throws {
        let desktop = try PanelDesktop(daemon: false, activatable: false)
        let panel = try desktop.openPanel(waitForTrack: false)
        #expect(
            waitUntil(timeout: 10) {
                panel.lines.contains("problem \(ErrorName.serviceUnknown.rawValue)")
            }, "\(panel.child.stdout)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(panel.child.isRunning)
        // It follows a daemon that appears later.
        try desktop.fixture.start()
        #expect(panel.shows(["selected": "2"]) && panel.draws(thumb: 2), "\(panel.child.stdout)")
    }

    @Test(
        "a daemon that does not answer (stopped): the window shows anyway, and follows once it answers")
    func daemonNotAnswering() throws {
        let desktop = try PanelDesktop()
        let daemon = try #require(desktop.fixture.daemon)
        kill(daemon.pid, SIGSTOP)
        defer { kill(daemon.pid, SIGCONT) }
        let panel = try desktop.openPanel(waitForTrack: false)  // waits for its window to be visible
        #expect(panel.drawnThumb == nil || panel.shownState.isEmpty, "\(panel.child.stdout)")
        kill(daemon.pid, SIGCONT)
        #expect(panel.shows(["selected": "2"]) && panel.draws(thumb: 2), "\(panel.child.stdout)")
        #expect(panel.track.width == 336, "\(panel.track)")
    }

    @Test(
        "pixels: the thumb at the shown index, the circle at the committed size, default and high-contrast theme",
        arguments: ["", "Default-hc"])
    func pixels(theme: String) throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel(
            [], extraEnvironment: theme.isEmpty ? [:] : ["GTK_THEME": theme])
        try desktop.client.selector("SetIndex", [.uint32(1)])  // committed: 40
        let other = try Connection(address: desktop.fixture.bus.address)
        defer { other.close() }
        try other.selector("Preview", [.double(324)])  // shown: 100
        #expect(panel.draws(thumb: 4) && panel.shows(["selected": "1"]))
        Thread.sleep(forTimeInterval: 0.2)  // the frame reported is on screen
        let image = try panel.screenshot()
        let track = panel.track
        let centre = track.y + track.height / 2
        let ticks = [12, 90, 168, 246, 324].map { image.at(track.x + $0, centre) }
        let accent = ticks[4]
        // The thumb's colour at tick 4 only; the other ticks are drawn alike, in another colour.
        #expect(
            ticks[0..<4].allSatisfy { !Pixels.close($0, accent, tolerance: 40) }, "\(theme): \(ticks)")
        #expect(ticks[0..<4].allSatisfy { Pixels.close($0, ticks[0]) }, "\(theme): \(ticks)")
        // The circle: the longest run of the accent above the track is its diameter, 40 (anti-aliased edges).
        let diameter = image.longestRun(of: accent, above: track.y - 40)
        #expect((38...41).contains(diameter), "\(theme): circle \(diameter) px wide")
        try other.selector("Cancel")
        try desktop.client.selector("SetIndex", [.uint32(4)])
        #expect(panel.draws(thumb: 4) && panel.shows(["selected": "4", "previewing": "false"]))
        Thread.sleep(forTimeInterval: 0.2)
        let after = try panel.screenshot()
        let circle = after.longestRun(of: after.at(track.x + 324, centre), above: track.y - 40)
        #expect((98...101).contains(circle), "\(theme): circle \(circle) px wide")
    }

    @Test(
        "in Arabic the track runs right to left as GtkScale's does: the smallest size at the right end")
    func arabic() throws {
        let locale = "ar_EG.UTF-8"
        try #require(
            localeInstalled(locale), "\(locale) is not installed: `make test` makes it (make locales)")
        _ = try compileCatalogs()
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel(
            [], extraEnvironment: ["LANG": locale, "LC_ALL": locale, "LANGUAGE": ""])
        try panel.press(at: 20)  // the left end: the largest size
        #expect(desktop.daemonHas(shown: 4, previewing: true), "\(desktop.snapshot)")
        try panel.move(to: 320)
        #expect(desktop.daemonHas(shown: 0, previewing: true), "\(desktop.snapshot)")
        try panel.release()
        #expect(
            desktop.daemonHas(selected: 0, previewing: false) && panel.draws(thumb: 0),
            "\(desktop.snapshot)")
        Thread.sleep(forTimeInterval: 0.2)
        let image = try panel.screenshot()
        let track = panel.track
        let right = image.at(track.x + 324, track.y + track.height / 2),
            left = image.at(track.x + 12, track.y + track.height / 2)
        #expect(
            !Pixels.close(right, left, tolerance: 40),
            "the thumb is drawn at the right end: \(right) \(left)")
        try panel.key("Left")  // Left is larger on a right-to-left track
        #expect(desktop.daemonHas(selected: 1), "\(desktop.snapshot)")
    }
}
