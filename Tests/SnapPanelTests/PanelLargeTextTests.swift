import Foundation
import Testing
import TestSupport

/// A low-vision person's desktop: Large Text turned on while the panel runs (an XSETTINGS manager, as
/// GNOME's settings daemon hands it to X11 applications), in the default and the high-contrast theme.
/// The words grow with the desktop's text scaling; the control keeps the daemon's geometry (the track
/// TrackWidth wide, the circle its size in points), so pointer positions mean the same.
@Suite("Panel under Xvfb: large text", .serialized)
struct PanelLargeTextTests {
    /// What a screenshot of the panel shows at the committed size 60 (index 2).
    struct Look {
        var track: (x: Int, y: Int, width: Int, height: Int)
        /// The "Selected size" line above the track: its ink's width and height.
        var text: (width: Int, height: Int)
        var circle: Int
        var thumbApart: Bool
        var ticksAlike: Bool
        var outsideBlank: Bool
    }

    /// The window's look once its newest frame is on screen (a window just mapped or resized can
    /// still be black in the first screenshot).
    static func look(_ panel: Panel) throws -> Look {
        var image = try panel.screenshot()
        var text: (width: Int, height: Int)?
        let track = panel.track
        let background = { image.at(1, 1) }
        waitUntil(timeout: 10, interval: 0.1) {
            if let shot = try? panel.screenshot() { image = shot }
            text = image.textLine(above: track.y, background: background())
            return text != nil && background() != Pixels.RGB(r: 0, g: 0, b: 0)
        }
        guard let text else { throw TestFailure("no text above the track: \(panel.child.stdout)") }
        let centre = track.y + track.height / 2
        let ticks = [12, 90, 168, 246, 324].map { image.at(track.x + $0, centre) }
        return Look(
            track: track, text: text,
            circle: image.longestRun(of: ticks[2], above: track.y - 40),
            thumbApart: [0, 1, 3, 4].allSatisfy { !Pixels.close(ticks[$0], ticks[2], tolerance: 40) },
            ticksAlike: [1, 3, 4].allSatisfy { Pixels.close(ticks[$0], ticks[0]) },
            // Nothing is drawn left of the bar's start: the track begins where the trace says.
            outsideBlank: Pixels.close(image.at(track.x + 4, centre), background()))
    }

    @Test(
        "Large Text turned on while the panel runs: the words grow, the track stays TrackWidth wide, the circle 60 points",
        arguments: ["", "Default-hc"])
    func largeText(theme: String) throws {
        let desktop = try PanelDesktop()
        let panel = try desktop.openPanel(
            [], extraEnvironment: theme.isEmpty ? [:] : ["GTK_THEME": theme])
        let before = try Self.look(panel)
        let settings = try DesktopSettings(
            display: desktop.display.display, textScalingFactor: DesktopSettings.largeTextFactor)
        defer { settings.stop() }
        // The taller words above it push the track down: the window was laid out again.
        #expect(
            waitUntil(timeout: 10) { panel.track.y > before.track.y },
            "\(theme): the panel did not follow the text scaling: \(panel.child.stdout)")
        let after = try Self.look(panel)
        print(
            "\(theme.isEmpty ? "default" : theme): 'Selected size' \(before.text) -> \(after.text) px, track \(before.track) -> \(after.track), circle \(before.circle) -> \(after.circle) px"
        )
        for look in [before, after] {
            #expect(look.track.width == 336 && look.track.height == 40, "\(theme): \(look.track)")
            #expect((58...61).contains(look.circle), "\(theme): circle \(look.circle) px")
            #expect(look.thumbApart && look.ticksAlike && look.outsideBlank, "\(theme): \(look)")
        }
        let wider = Double(after.text.width) / Double(before.text.width)
        let taller = Double(after.text.height) / Double(before.text.height)
        #expect(
            wider >= 1.15 && taller >= 1.1,
            "\(theme): the text grew \(wider)x wide, \(taller)x tall (the desktop asks \(DesktopSettings.largeTextFactor)x)"
        )
        // The panel still works at the new layout: a press on the track previews where it lands.
        try panel.press(at: 324)
        #expect(desktop.daemonHas(shown: 4, previewing: true), "\(desktop.snapshot)")
        try panel.release()
        #expect(desktop.daemonHas(selected: 4, previewing: false), "\(desktop.snapshot)")
    }
}
