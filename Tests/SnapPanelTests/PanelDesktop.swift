import DBusKit
import Foundation
import SizeSelectorContract
import SnapCore
import TestSupport

/// A headless desktop for the panel: Xvfb, a private session bus with the real snapsized (or none, or
/// one to activate), and `snapsize-panel --trace`, driven with a real pointer and keyboard (xdotool).
/// The panel's trace says where its track is and which thumb each frame drew; the daemon's properties
/// say what it holds. Everything is stopped by PID.
final class PanelDesktop {
    let display: VirtualDisplay
    let fixture: DaemonFixture
    /// A client of our own on the bus (another program, for changes and previews made elsewhere).
    let client: Connection
    private(set) var panels: [Panel] = []

    /// `daemon`: start snapsized now; `activatable`: the bus can start it (D-Bus activation).
    init(daemon: Bool = true, activatable: Bool = false) throws {
        // Xvfb -displayfd picks a free display number, but two servers starting at once on this shared
        // machine can race for one and the loser hangs (seen once in a whole `swift test`): one more try.
        display = try (try? VirtualDisplay(timeout: 15)) ?? VirtualDisplay()
        fixture = try DaemonFixture(startDaemon: daemon, activatable: activatable)
        client = try Connection(address: fixture.bus.address)
    }

    deinit {
        for panel in panels { panel.stop() }
        client.close()
        display.stop()
    }

    var environment: [String: String] {
        var environment = fixture.environment
        environment["DISPLAY"] = display.display
        environment["GTK_A11Y"] = "none"  // no accessibility bus here: GTK must not go looking for one
        return environment
    }

    /// Starts a panel and waits until it has drawn the daemon's state (or said why it cannot).
    @discardableResult
    func openPanel(
        _ arguments: [String] = [], extraEnvironment: [String: String] = [:], waitForTrack: Bool = true
    ) throws -> Panel {
        guard let executable = productPath("snapsize-panel") else {
            throw TestFailure("snapsize-panel is not built")
        }
        let panel = try PanelProcess(
            executable, arguments, environment: environment.merging(extraEnvironment) { $1 },
            waitForTrack: waitForTrack)
        // Without a window manager every window opens at the screen's corner: side by side instead.
        if !panels.isEmpty {
            try xdotool(["windowmove", "--sync", panel.window, String(640 * panels.count), "0"])
        }
        panels.append(panel)
        return panel
    }

    func property(_ name: SelectorProperty) -> DBusValue? { try? client.selectorProperty(name.name) }
    var shownIndex: Int? { property(.shownIndex)?.asUInt32.map(Int.init) }
    var selectedIndex: Int? { property(.selectedIndex)?.asUInt32.map(Int.init) }
    var previewing: Bool? { property(.previewing)?.asBool }

    /// Waits until the daemon shows `shown`, commits `selected` and has (or has no) preview open.
    @discardableResult
    func daemonHas(
        shown: Int? = nil, selected: Int? = nil, previewing: Bool? = nil, timeout: Double = 10
    ) -> Bool {
        waitUntil(timeout: timeout, interval: 0.01) {
            (shown == nil || shownIndex == shown) && (selected == nil || selectedIndex == selected)
                && (previewing == nil || self.previewing == previewing)
        }
    }

    var snapshot: String {
        "daemon shown \(shownIndex ?? -1) selected \(selectedIndex ?? -1) previewing \(previewing ?? false)"
    }

    /// Runs xdotool on this display.
    @discardableResult
    func xdotool(_ arguments: [String]) throws -> String {
        try TestSupport.xdotool(arguments, environment: environment)
    }
}

typealias Panel = PanelProcess

extension PanelProcess {
    /// The window as pixels (ImageMagick's import), rows of RGB.
    func screenshot() throws -> Pixels {
        let path = try makeTemporaryDirectory() + "/shot.ppm"
        let result = try run(
            "import", ["-window", window, "-depth", "8", "ppm:" + path], environment: environment,
            timeout: 30)
        guard result.status == 0 else { throw TestFailure("import: \(result.stderr)") }
        return try Pixels(ppm: path)
    }
}

/// An RGB image read from a binary PPM (P6).
struct Pixels {
    let width: Int
    let height: Int
    let bytes: [UInt8]

    init(ppm path: String) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields: [Int] = []
        var index = 2  // after "P6"
        while fields.count < 3 {
            while index < data.count, data[index] == 0x20 || data[index] == 0x0a { index += 1 }
            var number = 0
            while index < data.count, (0x30...0x39).contains(data[index]) {
                number = number * 10 + Int(data[index] - 0x30); index += 1
            }
            fields.append(number)
        }
        width = fields[0]
        height = fields[1]
        bytes = Array(data[(index + 1)...])
        guard bytes.count >= width * height * 3 else { throw TestFailure("short PPM \(path)") }
    }

    struct RGB: Equatable { let r, g, b: Int }

    func at(_ x: Int, _ y: Int) -> RGB {
        let offset = (y * width + x) * 3
        return RGB(r: Int(bytes[offset]), g: Int(bytes[offset + 1]), b: Int(bytes[offset + 2]))
    }

    static func close(_ a: RGB, _ b: RGB, tolerance: Int = 24) -> Bool {
        abs(a.r - b.r) <= tolerance && abs(a.g - b.g) <= tolerance && abs(a.b - b.b) <= tolerance
    }

    /// The longest run of `colour` on any row above `limit` (the circle's diameter, drawn in it).
    func longestRun(of colour: RGB, above limit: Int) -> Int {
        var longest = 0
        for y in 0..<min(limit, height) {
            var run = 0
            for x in 0..<width {
                run = Pixels.close(at(x, y), colour) ? run + 1 : 0
                longest = max(longest, run)
            }
        }
        return longest
    }

    /// The line of text nearest above row `y`: the first band of rows with ink (pixels far from
    /// `background`) met going up, ending at a blank row; the ink's width and height in pixels.
    func textLine(above y: Int, background: RGB) -> (width: Int, height: Int)? {
        var rows = 0, left = width, right = -1
        for row in stride(from: min(y, height) - 1, through: 0, by: -1) {
            let ink = (0..<width).filter { !Pixels.close(at($0, row), background, tolerance: 80) }
            if ink.isEmpty {
                if rows > 0 { break }
                continue
            }
            rows += 1
            left = min(left, ink.first!)
            right = max(right, ink.last!)
        }
        return rows > 0 ? (right - left + 1, rows) : nil
    }
}

/// The article's mapping, for the expected index of an x.
let articleSnapper = Snapper()
func expectedIndex(_ x: Int) -> Int { (try? articleSnapper.index(at: Double(x))) ?? -1 }
