import Foundation
import Testing
import DBusKit
import TestSupport

extension OrcaTests {
    /// The panel (snapsize-panel, GTK 4) on the same desktop as the daemon's slider, with real Orca: the
    /// track is focused with Shift+Tab (Orca says nothing for a GTK 4.8 window that opens focused), a key,
    /// a drag and release with a real pointer, and a change from snapsizectl while the panel has focus.
    /// Each is heard exactly once, with the size. On GTK 4.8 (`make test`, Orca 43) the size is the
    /// track's description and each change is the daemon's announcement; on GTK 4.10+ (`make
    /// test-orca48`: the panel runs from the Debian 13 root, on GTK 4.18) the track has a Value, whose
    /// events Orca speaks and brailles, and the daemon stays quiet while it holds focus.
    @Test(
        "the panel: focus into the track, Right, a drag and release, snapsizectl while focused: each heard once, with the size"
    )
    func panelScenario() throws {
        guard let panelPath = productPath("snapsize-panel"), let snapsizectl = productPath("snapsizectl")
        else {
            throw TestFailure("snapsize-panel and snapsizectl are not built")
        }
        let display = try VirtualDisplay()
        let fixture = try SliderFixture(sessionExtras: ["DISPLAY": display.display])
        let orca = try ScreenReader(
            prefsSource: orcaPrefsDirectory, environment: fixture.stack.environment,
            workDirectory: fixture.bus.directory)
        let speech = SpeechLog(orca)
        var environment = fixture.stack.environment
        environment["NO_AT_BRIDGE"] = nil
        let panel = try PanelProcess(
            panelPath, environment: environment, onDesktop: fixture.bus.directory)
        speech.note("the panel's track: accessible \(panel.hasValue ? "value" : "description")")
        defer {
            print("Orca transcripts, the panel (\(orcaVersion())):\n" + speech.report)
            panel.stop()
            orca.stop()
        }
        @discardableResult
        func xdotool(_ arguments: [String]) throws -> String {
            try TestSupport.xdotool(arguments, environment: environment)
        }
        try panel.focus()
        /// Braille: the lines Orca showed since `markBraille()` (whole lines, as a person pans).
        var brailleStart = 0
        func markBraille() { brailleStart = orca.braille.count }
        func brailleSince() -> [String] { Array(orca.braille.dropFirst(brailleStart)) }
        func showsBraille(_ text: String) -> Bool {
            waitUntil(timeout: 10) { brailleSince().contains { $0.contains(text) } }
        }
        /// The line at rest: after any flash message is over (Orca's brailleFlashTime is 2 s here).
        func lineAtRest() -> String {
            Thread.sleep(forTimeInterval: 3)
            return orca.braille.last ?? ""
        }

        // (0) The window has just opened, its track focused by GTK but not presented by Orca (no focus
        // has moved inside it yet): a change from snapsizectl is heard once, and back.
        speech.begin("panel 0 the window just opened: snapsizectl inc, dec (60 -> 80 -> 60)")
        speech.settle()
        speech.mark()
        for (command, heard) in [("inc", "80 points"), ("dec", "60 points")] {
            let result = try run(snapsizectl, [command], environment: environment, timeout: 20)
            speech.note(
                "snapsizectl \(command) answered \(result.stdout.trimmingCharacters(in: .newlines))")
            #expect(result.status == 0, "\(result)")
            #expect(speech.heard([heard]), "\(speech.current)")
            speech.mark()
        }

        // (1) Focus into the track: Tab to Smaller, then Shift+Tab back. The label and the size, once.
        speech.begin("panel 1 Tab, then Shift+Tab into the track")
        try xdotool(["key", "Tab"])
        #expect(
            waitUntil(timeout: 10) { orca.locus.last?.hasSuffix("| Smaller") == true }, "\(orca.locus)")
        speech.settle()
        speech.mark()
        markBraille()
        try xdotool(["key", "shift+Tab"])
        #expect(waitUntil(timeout: 10) { orca.locus.last == "slider | Circle size" }, "\(orca.locus)")
        speech.settle()
        #expect(speech.current.first?.hasPrefix("Circle size") == true, "\(speech.current)")
        #expect(speech.current.filter { $0.contains("60 points") }.count == 1, "\(speech.current)")
        // Braille: the track's line ("Circle size slider" on Orca 43; Orca 48 adds the description, the
        // size; with a Value, the value text follows the name: "Circle size 60 points slider").
        #expect(
            showsBraille(panel.hasValue ? "Circle size 60 points slider" : "Circle size slider"),
            "\(brailleSince())")

        // (2) Right: committed by the daemon, spoken once (its announcement; the focused track stays quiet).
        speech.begin("panel 2 Right: 60 -> 80")
        markBraille()
        try xdotool(["key", "Right"])
        #expect(speech.heard(["80 points"]), "\(speech.current)")
        // Braille: the new size, as a flash of the announcement (brailleFlashTime, 2 s here), or with a
        // Value the track's line rewritten in place.
        #expect(showsBraille("80 points"), "\(brailleSince())")
        if panel.hasValue {
            // The value event rebuilds the focused track's line; it stays.
            let atRest = lineAtRest()
            #expect(atRest.contains("Circle size 80 points"), "the line at rest: \(atRest)")
        } else {
            // Known limit (docs/PANEL.md): after the flash, the line at rest is the one Orca made when
            // focus arrived. Orca rebuilds a focused object's line only for a focus, name, value or text
            // event; GTK 4.8 gives the track no Value, and a name or focus event would be spoken twice.
            #expect(
                waitUntil(timeout: 10) {
                    let lines = brailleSince()
                    return lines.lastIndex(of: "80 points").map { $0 < lines.count - 1 } ?? false
                }, "the flash ends: \(brailleSince())")
            let atRest = orca.braille.last ?? ""
            withKnownIssue(
                "GTK 4.8: the braille line at rest keeps the size it had at focus (Orca 48) or none (Orca 43)"
            ) {
                #expect(atRest.contains("80 points"), "the line at rest: \(atRest)")
            }
        }

        // (3) A drag from 168 to 324 and release: nothing during the preview, the commit once.
        speech.begin("panel 3 drag 168 -> 246 -> 324, release: 80 -> 100")
        try panel.press(at: 168)
        try panel.move(to: 246)
        try panel.move(to: 324)
        Thread.sleep(forTimeInterval: 1)
        #expect(speech.current.isEmpty, "nothing while previewing: \(speech.current)")
        markBraille()
        try panel.release()
        #expect(speech.heard(["100 points"]), "\(speech.current)")
        #expect(showsBraille("100 points"), "\(brailleSince())")
        if panel.hasValue {
            let atRest = lineAtRest()
            #expect(atRest.contains("Circle size 100 points"), "the line at rest: \(atRest)")
        }

        // (4) A change from elsewhere (a key bound to snapsizectl) while the panel's track has focus: once.
        speech.begin("panel 4 snapsizectl dec while the panel has focus: 100 -> 80")
        markBraille()
        let result = try run(snapsizectl, ["dec"], environment: environment, timeout: 20)
        speech.note("snapsizectl dec answered \(result.stdout.trimmingCharacters(in: .newlines))")
        #expect(result.status == 0, "\(result)")
        #expect(speech.heard(["80 points"]), "\(speech.current)")
        #expect(showsBraille("80 points"), "\(brailleSince())")
        #expect(
            orca.locus.last == "slider | Circle size",
            "the panel's track kept Orca's focus: \(orca.locus)")
        if panel.hasValue {
            let atRest = lineAtRest()
            #expect(atRest.contains("Circle size 80 points"), "the line at rest: \(atRest)")
        }

        if panel.hasValue {
            // (4b) A screen reader's write of the track's Value (pyatspi, as dogtail does): rounded,
            // committed through the daemon, heard once from the value event; then Left, back to 80.
            speech.begin("panel 4b pyatspi writes 4.4 into the track's Value: 80 -> 100, then Left")
            let written = try fixture.python("set_panel_value.py", ["4.4"])
            speech.note("pyatspi wrote 4.4; the Value said before: \(written["before"] ?? "")")
            let before = written["before"] as? [String: Any] ?? [:]
            #expect(
                (before["minimum"] as? NSNumber)?.doubleValue == 0
                    && (before["maximum"] as? NSNumber)?.doubleValue == 4
                    && (before["current"] as? NSNumber)?.doubleValue == 3, "\(before)")
            #expect(panel.shows(["selected": "4"]), "committed: \(panel.shownState)")
            #expect(speech.heard(["100 points"]), "\(speech.current)")
            speech.mark()
            try xdotool(["key", "Left"])
            #expect(speech.heard(["80 points"]), "\(speech.current)")
        }

        // (5) Tab to Smaller, then a change from snapsizectl: the panel's track has no focus, so the
        // daemon speaks it (with a Value, the quiet rule has ended), once. Focus back into the track:
        // the new size, once; leaving it says nothing of it.
        speech.begin("panel 5 Tab, snapsizectl dec (80 -> 60), Shift+Tab into the track again")
        try xdotool(["key", "Tab"])
        #expect(
            waitUntil(timeout: 10) { orca.locus.last?.hasSuffix("| Smaller") == true }, "\(orca.locus)")
        speech.settle()
        // Only the button ("Smaller push button" on Orca 43, "Smaller button" on 48), no size.
        #expect(
            speech.current.count == 1 && speech.current.first?.hasPrefix("Smaller") == true,
            "\(speech.current)")
        speech.mark()
        let fromButton = try run(snapsizectl, ["dec"], environment: environment, timeout: 20)
        speech.note("snapsizectl dec answered \(fromButton.stdout.trimmingCharacters(in: .newlines))")
        #expect(fromButton.status == 0, "\(fromButton)")
        #expect(speech.heard(["60 points"]), "\(speech.current)")
        speech.mark()
        try xdotool(["key", "shift+Tab"])
        #expect(waitUntil(timeout: 10) { orca.locus.last == "slider | Circle size" }, "\(orca.locus)")
        speech.settle()
        #expect(
            speech.current.filter { $0.contains("60 points") }.count == 1
                && !speech.current.contains { $0.contains("80 points") }, "\(speech.current)")

        // (5b) Focus leaves for a window without accessibility (xmessage): no focus event from it, but
        // the track loses focus with its window, so a change is heard once (from the daemon). On GTK
        // 4.8 Orca 43 keeps the track as its locus, so the track describes no size while its window is
        // inactive (an empty description Orca does not speak); back in the window, the size is heard.
        speech.begin("panel 5b xmessage takes X focus, snapsizectl inc (60 -> 80)")
        let other = try ChildProcess("/usr/bin/xmessage", ["snapsize"], environment: environment)
        defer { other.terminate() }
        // xmessage (Xt) does not say its pid on its window: found by its class.
        let otherWindow = try xdotool(["search", "--sync", "--onlyvisible", "--classname", "xmessage"])
        try xdotool(["windowfocus", "--sync", String(otherWindow.split(separator: "\n").first ?? "")])
        speech.settle()
        speech.mark()
        let fromElsewhere = try run(snapsizectl, ["inc"], environment: environment, timeout: 20)
        speech.note("snapsizectl inc answered \(fromElsewhere.stdout.trimmingCharacters(in: .newlines))")
        #expect(speech.heard(["80 points"]), "\(speech.current)")
        other.terminate()
        speech.mark()
        try panel.focus()
        #expect(waitUntil(timeout: 10) { orca.locus.last == "slider | Circle size" }, "\(orca.locus)")
        speech.settle()
        #expect(
            speech.current.filter { $0.contains("80 points") }.count == 1,
            "back in the window: \(speech.current)")

        // (6) With the daemon's speech off, Right on the focused track commits: on GTK 4.8 the panel
        // speaks none of its own changes (no Value), so Orca says nothing and the daemon's announcement
        // is the one voice; with a Value the track's own value event says it, once.
        speech.begin("panel 6 snapsized restarted with --announce never: Right 60 -> 80")
        try fixture.stopActivated()
        try fixture.startDaemon(["--announce", "never"], environment: fixture.stack.environment)
        _ = try fixture.python("inspect_slider.py")
        #expect(panel.shows(["selected": "2"]), "the panel follows the new daemon: \(panel.shownState)")
        speech.settle()
        speech.mark()
        try xdotool(["key", "Right"])
        #expect(panel.shows(["selected": "3"]), "committed: \(panel.shownState)")
        speech.note("Right committed 80")
        speech.settle()
        if panel.hasValue {
            #expect(speech.current == ["80 points"], "the track's value event: \(speech.current)")
        } else {
            #expect(speech.current.isEmpty, "the panel said its own change: \(speech.current)")
        }
    }
}
