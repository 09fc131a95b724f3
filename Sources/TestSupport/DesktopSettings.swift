import Foundation

/// The desktop's settings on an X display, as a settings daemon hands them to X11 applications: an
/// XSETTINGS manager (xsettingsd) owning the display's _XSETTINGS_S0 selection. GTK 4 on X11 reads its
/// text scaling (gtk-xft-dpi) only from there: without a manager it keeps 96 dpi whatever
/// settings.ini, the Xft.dpi resource or GDK_DPI_SCALE say (seen with GTK 4.8). Starting the manager
/// while an application runs is turning the setting on in a running session: GTK follows it live.
public final class DesktopSettings {
    /// GNOME's "Large Text" (org.gnome.desktop.interface text-scaling-factor 1.25), which GNOME's
    /// settings daemon hands X11 applications as Xft/DPI = 96 × factor × 1024.
    public static let largeTextFactor = 1.25
    static let baseDPI = 96.0
    static let xsettingsUnitsPerDot = 1024.0

    public let manager: ChildProcess
    private let folder: String

    /// Starts the manager on `display` with the text scaled by `textScalingFactor`, and waits until it
    /// owns the selection.
    public init(display: String, textScalingFactor: Double) throws {
        let executable = "/usr/bin/xsettingsd"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestFailure(
                "xsettingsd is not installed (apt install xsettingsd; `make test` does it)")
        }
        folder = try makeTemporaryDirectory()
        let config = folder + "/xsettingsd.conf"
        let dpi = Int((Self.baseDPI * textScalingFactor * Self.xsettingsUnitsPerDot).rounded())
        try "Xft/DPI \(dpi)\n".write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        let manager = try ChildProcess(executable, ["-c", config], environment: environment)
        self.manager = manager
        let owned = waitUntil(timeout: 10, interval: 0.02) {
            manager.stderr.contains("Took ownership") || !manager.isRunning
        }
        guard owned, manager.isRunning else {
            manager.terminate()
            throw TestFailure("xsettingsd did not take the display's settings: \(manager.stderr)")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    public func stop() { manager.terminate() }
}
