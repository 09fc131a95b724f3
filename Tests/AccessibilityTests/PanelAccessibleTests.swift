import Foundation
import Testing
import TestSupport

/// snapsize-panel as a client of the accessibility bus sees it (pyatspi): the track is a slider named by
/// the daemon's label, describing the current size, whose extents in window coordinates are exactly the
/// track (TrackWidth wide, where the panel drew it); the circle is an image named with its size; no
/// accessible is left with a toolkit class for a name.
@Suite("The panel's accessibles")
struct PanelAccessibleTests {
    @Test("slider with the track's extents, the circle an image named with its size, labels as labels")
    func accessibles() throws {
        let (display, fixture, panel) = try startPanel()
        defer {
            panel.stop()
            withExtendedLifetime(display) {}
        }
        let track = panel.track
        var objects: [[String: Any]] = []
        var slider: [String: Any] = [:]
        #expect(
            waitUntil(timeout: 20, interval: 0.2) {
                objects =
                    ((try? fixture.python("inspect_panel.py")["objects"]) as? [[String: Any]]) ?? []
                slider = objects.first { $0.string("roleName") == "slider" } ?? [:]
                return slider.string("description") == "60 points"
            }, "\(objects)")
        #expect(slider.string("name") == "Circle size")
        let extents = (slider["extents"] as? [NSNumber])?.map(\.intValue) ?? []
        #expect(
            extents == [track.x, track.y, 336, 40],
            "the slider's extents are the track's: \(extents) against \(track)")
        let image = objects.first { $0.string("roleName") == "image" } ?? [:]
        #expect(image.string("name") == "Circle, 60 points", "\(image)")
        #expect(
            objects.contains {
                $0.string("roleName") == "label" && $0.string("name") == "Applied size: 60 points"
            }, "\(objects)")
        #expect(
            objects.contains { $0.string("roleName") == "push button" && $0.string("name") == "Larger" },
            "\(objects)")
        #expect(!objects.contains { ($0.string("name") ?? "").hasPrefix("Gtk") }, "\(objects)")
        // A change made elsewhere: the circle's name follows it.
        try fixture.client.selector("Increment")
        #expect(
            waitUntil(timeout: 10, interval: 0.2) {
                let now =
                    ((try? fixture.python("inspect_panel.py")["objects"]) as? [[String: Any]]) ?? []
                return now.contains {
                    $0.string("roleName") == "image" && $0.string("name") == "Circle, 80 points"
                }
            })
    }

    @Test(
        "Large Text turned on in the high-contrast theme: the slider's extents are still the track's, where it moved"
    )
    func largeTextExtents() throws {
        let (display, fixture, panel) = try startPanel(theme: "Default-hc")
        defer { panel.stop() }
        let before = panel.track
        let settings = try DesktopSettings(
            display: display.display, textScalingFactor: DesktopSettings.largeTextFactor)
        defer { settings.stop() }
        #expect(waitUntil(timeout: 10) { panel.track.y > before.y }, "\(panel.child.stdout)")
        let track = panel.track
        var extents: [Int] = []
        #expect(
            waitUntil(timeout: 20, interval: 0.2) {
                let objects =
                    ((try? fixture.python("inspect_panel.py")["objects"]) as? [[String: Any]]) ?? []
                let slider = objects.first { $0.string("roleName") == "slider" } ?? [:]
                extents = (slider["extents"] as? [NSNumber])?.map(\.intValue) ?? []
                return extents == [track.x, track.y, 336, 40]
            }, "the slider's extents \(extents), the track \(track) (before Large Text: \(before))")
    }

    /// A display, the accessibility stack with the daemon, and the panel on them (in `theme`, if given).
    private func startPanel(theme: String? = nil) throws -> (VirtualDisplay, SliderFixture, PanelProcess)
    {
        guard let panelPath = productPath("snapsize-panel") else {
            throw TestFailure("snapsize-panel is not built")
        }
        let display = try VirtualDisplay()
        let fixture = try SliderFixture(sessionExtras: ["DISPLAY": display.display])
        var environment = fixture.stack.environment
        environment["NO_AT_BRIDGE"] = nil
        if let theme { environment["GTK_THEME"] = theme }
        return (display, fixture, try PanelProcess(panelPath, environment: environment))
    }
}
