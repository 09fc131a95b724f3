import DBusKit
import Foundation
import SizeSelectorContract
import Testing
import TestSupport

/// The article's "Check endpoints, thresholds, and interrupted drags" with a real pointer (xdotool)
/// under Xvfb, against the real snapsized on a private bus: what the daemon holds and what the panel
/// drew are both checked after every step.
@Suite("Panel under Xvfb: the pointer", .serialized)
struct PanelPointerTests {
    @Test(
        "the article's x table, pressed on the track: each previews, then commits, the article's index")
    func articleTable() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel()
        #expect(
            panel.track.width == 336 && panel.track.height == 40,
            "the track is exactly TrackWidth wide: \(panel.track)")
        #expect(panel.draws(thumb: 2))
        for x in [0, 12, 50, 51, 52, 90, 168, 246, 285, 324, 350, -10, 400] {
            let index = expectedIndex(x)
            let onTrack = (0..<336).contains(x)
            // Beyond an end the press is on the track and the drag goes past it.
            try panel.press(at: onTrack ? x : 168)
            if !onTrack { try panel.move(to: x) }
            #expect(desktop.daemonHas(shown: index, previewing: true), "x \(x): \(desktop.snapshot)")
            #expect(panel.draws(thumb: index), "x \(x): the thumb drawn at \(panel.drawnThumb ?? -1)")
            try panel.release()
            #expect(
                desktop.daemonHas(shown: index, selected: index, previewing: false),
                "x \(x): \(desktop.snapshot)")
            #expect(
                panel.shows(["selected": "\(index)", "previewing": "false"]),
                "x \(x): \(panel.shownState)")
        }
        #expect(panel.count("error ") == 0, "\(panel.child.stdout)")
    }

    @Test(
        "a drag across every interval shows only allowed sizes; beyond the ends the thumb stays on the end ticks; release between ticks commits the nearest"
    )
    func dragAcross() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel()
        try panel.press(at: 168)
        #expect(desktop.daemonHas(shown: 2, previewing: true))
        for x in Array(stride(from: 168, through: 420, by: 21))
            + Array(stride(from: 420, through: -24, by: -24)) + [-30]
        {
            try panel.move(to: x)
            let shown = try #require(desktop.shownIndex)
            #expect((0...4).contains(shown))
        }
        #expect(
            desktop.daemonHas(shown: 0, previewing: true), "beyond the left end: \(desktop.snapshot)")
        #expect(panel.draws(thumb: 0))
        try panel.move(to: 600)
        #expect(
            desktop.daemonHas(shown: 4, previewing: true), "beyond the right end: \(desktop.snapshot)")
        #expect(panel.draws(thumb: 4))
        #expect(
            panel.shows(["selected": "2", "smaller": "false", "larger": "false"]),
            "buttons off while dragging: \(panel.shownState)")
        // 125 lies between the ticks at 90 and 168, nearer 90: released there after a preview at the end.
        try panel.move(to: 125)
        try panel.release()
        #expect(desktop.daemonHas(selected: 1, previewing: false), "\(desktop.snapshot)")
        #expect(panel.draws(thumb: 1))
        // Every preview the panel sent got its answer before the next was sent (one in flight).
        let calls = panel.lines.filter { $0.hasPrefix("call Preview") }.count
        #expect(calls >= 2 && panel.count("error ") == 0, "\(panel.child.stdout)")
    }

    @Test("a click on an empty part of the track jumps there and commits")
    func clickJumps() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel()
        try panel.press(at: 230)
        try panel.release()
        #expect(desktop.daemonHas(selected: 3, previewing: false), "\(desktop.snapshot)")
        #expect(panel.draws(thumb: 3))
    }

    @Test("Escape, the window losing focus and the panel being killed mid-drag leave no preview")
    func interruptions() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel()
        // Escape: Cancel, and the release after it commits nothing.
        try panel.press(at: 300)
        #expect(desktop.daemonHas(shown: 4, previewing: true))
        try panel.key("Escape")
        #expect(
            desktop.daemonHas(shown: 2, selected: 2, previewing: false), "Escape: \(desktop.snapshot)")
        try panel.release()
        #expect(panel.draws(thumb: 2))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(desktop.selectedIndex == 2 && panel.count("call Commit") == 0, "\(panel.child.stdout)")

        // Focus moves to another window (a second panel) mid-drag.
        let other = try desktop.openPanel()
        try panel.focus()
        try panel.press(at: 20)
        #expect(desktop.daemonHas(shown: 0, previewing: true))
        try desktop.xdotool(["windowfocus", "--sync", other.window])
        #expect(
            desktop.daemonHas(shown: 2, selected: 2, previewing: false),
            "focus lost: \(desktop.snapshot)")
        try panel.release()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(desktop.selectedIndex == 2 && panel.count("call Commit") == 0, "\(panel.child.stdout)")

        // Killed mid-drag: the daemon's owner-left rule ends the preview of the panel's connection.
        try panel.focus()
        try panel.press(at: 330)
        #expect(desktop.daemonHas(shown: 4, previewing: true))
        #expect(
            other.shows(["shown": "4", "previewing": "true", "holder": "true"]),
            "the other panel names the holder: \(other.shownState)")
        panel.child.forceKill()
        #expect(
            desktop.daemonHas(shown: 2, selected: 2, previewing: false), "killed: \(desktop.snapshot)")
        #expect(
            other.shows(["shown": "2", "previewing": "false", "holder": "false"]), "\(other.shownState)")
        try desktop.xdotool(["mouseup", "1"])
    }

    @Test("--grab thumb: a press off the thumb does nothing; on it, the drag keeps the grab offset")
    func thumbGrab() throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel(["--grab", "thumb"])
        try panel.press(at: 300)
        try panel.move(to: 320)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(desktop.previewing == false && panel.count("call ") == 0, "\(panel.child.stdout)")
        try panel.release()
        // Taken 8 points left of the thumb's centre (168): moved by 78, the position is 246, not 238.
        try panel.press(at: 160)
        #expect(desktop.daemonHas(shown: 2, previewing: true))
        try panel.move(to: 238)
        #expect(desktop.daemonHas(shown: 3, previewing: true), "\(desktop.snapshot)")
        try panel.release()
        #expect(desktop.daemonHas(selected: 3, previewing: false), "\(desktop.snapshot)")
        #expect(panel.lines.contains("call Commit 246.0"), "\(panel.child.stdout)")
    }
}
