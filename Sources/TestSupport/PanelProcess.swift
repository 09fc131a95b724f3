import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A running `snapsize-panel --trace` on an X display (Xvfb), driven with a real pointer and keyboard
/// through xdotool, for the panel's tests, its Orca scenario and `make bench`. Its trace lines say where
/// the track is ("track X Y W H", in the window's coordinates), which thumb each frame drew ("frame
/// INDEX MICROSECONDS"), what the window shows ("state k=v ..."), and what it asked the daemon for.
public final class PanelProcess {
    public let child: ChildProcess
    /// The X window id (xdotool's).
    public let window: String
    public let environment: [String: String]

    /// Starts the panel with `environment` (DISPLAY and the session bus) and waits until its window is
    /// visible and, when `waitForTrack`, its track has been drawn with the daemon's state.
    ///
    /// With `onDesktop` (a folder under /tmp) and a desktop root (`SNAPSIZE_DESKTOP_ROOT`, `make
    /// test-orca48`), the panel runs from the root, on its GTK (Debian 13's 4.18): the executable is
    /// copied into that folder, which the root sees under the same path. The panel links the Swift
    /// runtime statically, so it needs only the root's system libraries (GTK 4, libdbus).
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String],
        waitForTrack: Bool = true, onDesktop: String? = nil
    ) throws {
        self.environment = environment
        let child: ChildProcess
        if let folder = onDesktop, DesktopRoot.path != nil {
            let copy = folder + "/snapsize-panel"
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: executable, toPath: copy)
            child = try DesktopRoot.start(copy, ["--trace"] + arguments, environment: environment)
        } else {
            child = try ChildProcess(executable, ["--trace"] + arguments, environment: environment)
        }
        self.child = child
        let drawn = waitUntil(timeout: 20, interval: 0.02) {
            (!waitForTrack
                || (child.stdout.contains("\nframe ")
                    && PanelProcess.trackRectangle(child.stdout) != nil))
                || !child.isRunning
        }
        guard drawn, child.isRunning else {
            child.terminate()
            throw TestFailure("snapsize-panel did not draw its track: \(child.stdout) \(child.stderr)")
        }
        do {
            window = try visibleWindow(of: child.pid, environment: environment)
        } catch {
            child.terminate()
            throw error
        }
    }

    public func stop() { child.terminate() }

    /// The track has an AT-SPI Value (the panel runs on GTK 4.10 or later), not only a description.
    public var hasValue: Bool { lines.contains("accessible value") }

    public var lines: [Substring] { child.stdout.split(separator: "\n") }

    public func count(_ prefix: String) -> Int { lines.filter { $0.hasPrefix(prefix) }.count }

    static func trackRectangle(_ text: String) -> [Int]? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("track ") }) else {
            return nil
        }
        let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        return numbers.count == 4 && numbers[2] > 0 ? numbers : nil
    }

    /// The track's rectangle in the window.
    public var track: (x: Int, y: Int, width: Int, height: Int) {
        let numbers = PanelProcess.trackRectangle(child.stdout) ?? [0, 0, 0, 0]
        return (numbers[0], numbers[1], numbers[2], numbers[3])
    }

    /// The thumb index of the newest frame drawn.
    public var drawnThumb: Int? {
        lines.last { $0.hasPrefix("frame ") }.flatMap { Int($0.split(separator: " ")[1]) }
    }

    /// The monotonic time in seconds at the end of a trace line ("frame 2 663723103": microseconds).
    public static func time(_ line: Substring) -> Double? {
        line.split(separator: " ").last.flatMap { Double($0) }.map { $0 / 1_000_000 }
    }

    /// The newest "state" line's fields (shown, selected, previewing, smaller, larger, holder).
    public var shownState: [String: String] {
        guard let line = lines.last(where: { $0.hasPrefix("state ") }) else { return [:] }
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// Waits until a frame has drawn the thumb at `index`.
    @discardableResult
    public func draws(thumb index: Int, timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout, interval: 0.01) { self.drawnThumb == index }
    }

    /// Waits until the window's state line has `fields`.
    @discardableResult
    public func shows(_ fields: [String: String], timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout, interval: 0.01) {
            fields.allSatisfy { self.shownState[$0.key] == $0.value }
        }
    }

    // MARK: The pointer and keys, in track coordinates

    /// Moves the pointer to track x, on the track's centre line.
    public func move(to x: Int) throws {
        let track = track
        try xdotool(
            ["mousemove", "--window", window, String(track.x + x), String(track.y + track.height / 2)],
            environment: environment)
    }

    public func press(at x: Int) throws {
        try move(to: x)
        try xdotool(["mousedown", "1"], environment: environment)
    }

    public func release() throws { try xdotool(["mouseup", "1"], environment: environment) }

    /// Gives this window X input focus (without a window manager a click does not).
    public func focus() throws {
        try xdotool(["windowfocus", "--sync", window], environment: environment)
    }

    /// Gives this window X input focus, then types `keys` (xdotool key names: Right, Home, Tab, Escape).
    public func key(_ keys: String...) throws {
        try focus()
        try xdotool(["key", "--delay", "30"] + keys, environment: environment)
    }
}

/// Runs xdotool with `environment` (its DISPLAY); throws with its stderr when it fails.
@discardableResult
public func xdotool(_ arguments: [String], environment: [String: String]) throws -> String {
    let result = try run("xdotool", arguments, environment: environment, timeout: 20)
    guard result.status == 0 else { throw TestFailure("xdotool \(arguments): \(result.stderr)") }
    return result.stdout
}

/// The first visible X window of process `pid` (waits up to 20 s for it to be mapped).
public func visibleWindow(of pid: pid_t, environment: [String: String]) throws -> String {
    var found = ""
    waitUntil(timeout: 20, interval: 0.05) {
        found =
            (try? run(
                "xdotool", ["search", "--onlyvisible", "--pid", String(pid)], environment: environment,
                timeout: 10))?
            .stdout.split(separator: "\n").first.map(String.init) ?? ""
        return !found.isEmpty
    }
    guard !found.isEmpty else { throw TestFailure("no visible window of pid \(pid)") }
    return found
}
