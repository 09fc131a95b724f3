import DBusKit
import Foundation
import SizeSelectorContract
import Testing
import TestSupport

/// The panel on Wayland, with no X server at all: GTK's Wayland backend, on weston's headless
/// compositor, shows the daemon's state and follows other clients. (Weston's headless backend has no
/// input devices: the pointer and the keys are tested under Xvfb.)
@Suite("Panel on Wayland (weston, headless)", .serialized)
struct PanelWaylandTests {
    @Test("it draws the daemon's state and follows another client's change and preview")
    func drawsAndFollows() throws {
        let fixture = try DaemonFixture()
        let compositor = try HeadlessWayland(environment: fixture.environment)
        defer { compositor.stop() }
        var environment = fixture.environment
        environment["WAYLAND_DISPLAY"] = compositor.display
        environment["GDK_BACKEND"] = "wayland"  // fail rather than find an X server
        environment["GTK_A11Y"] = "none"
        let executable = try #require(productPath("snapsize-panel"), "snapsize-panel is not built")
        let panel = try ChildProcess(executable, ["--trace"], environment: environment)
        defer { panel.terminate() }
        func drawn(_ index: Int, selected: Int) -> Bool {
            waitUntil(timeout: 20, interval: 0.02) {
                let lines = panel.stdout.split(separator: "\n")
                return lines.last { $0.hasPrefix("frame ") }?.split(separator: " ")[1] == "\(index)"
                    && lines.last { $0.hasPrefix("state ") }?.contains("selected=\(selected) ") == true
            }
        }
        #expect(drawn(2, selected: 2), "\(panel.stdout) \(panel.stderr)")
        let client = try Connection(address: fixture.bus.address)
        defer { client.close() }
        try client.selector("SetIndex", [.uint32(1)])
        #expect(drawn(1, selected: 1), "\(panel.stdout)")
        try client.selector("Preview", [.double(324)])
        #expect(drawn(4, selected: 1), "\(panel.stdout)")
        try client.selector("Cancel", [])
        #expect(drawn(1, selected: 1), "\(panel.stdout)")
        #expect(panel.isRunning, "\(panel.stderr)")
    }
}
