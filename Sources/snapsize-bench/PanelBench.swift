import Foundation
import TestSupport
import SystemCalls

/// `make bench`'s panel rows: snapsize-panel under Xvfb against the real snapsized on a private bus,
/// driven with a real pointer (xdotool), beside a plain GTK 4 window (Benchmarks/panel/plain-gtk4.c):
/// pointer motion -> the frame that shows the new thumb (p50, p99; the panel's own clock on both ends,
/// from its --trace lines: GTK's delivery of the motion, the end of the frame's drawing), start -> first
/// frame (the window is shown with the daemon's first answer, so this holds GetAll's round trip), and
/// PSS after a drag session. SNAPSIZE_BENCH_DUMP=PREFIX writes each start's trace to PREFIX-N.log.
struct PanelBench {
    /// The target for motion -> frame: within one frame at 60 Hz.
    static let frameBudgetMilliseconds = 1000.0 / 60
    /// Starts measured, after a first one whose figures are reported apart (`measure`).
    static let starts = 3
    /// Pointer moves per start, between the end ticks (every move changes the index).
    static let moves = 40

    let panel: String
    let plain: String

    /// The table, or one line saying why the rows were left out.
    func run() -> String {
        for (path, what) in [
            (panel, "snapsize-panel"), (plain, "snapsize-plain-gtk4 (make bench builds it)"),
            ("/usr/bin/xdotool", "xdotool"), ("/usr/bin/Xvfb", "Xvfb")
        ]
        where !FileManager.default.isExecutableFile(atPath: path) {
            return "snapsize-bench, the panel: left out, \(what) is missing (\(path))\n"
        }
        do {
            return try measure()
        } catch {
            return "snapsize-bench, the panel: failed: \(error)\n"
        }
    }

    /// One start's figures: start -> first frame, each move's motion -> frame (the first one right
    /// after the press), PSS after the drag.
    private struct Drag {
        var startup = 0.0
        var moves: [Double] = []
        /// The same moves from the X server's time stamp of the motion (nil when it is not on the
        /// monotonic clock): what GTK held the motion for is in it.
        var fromEvent: [Double?] = []
        var pss = 0.0
    }

    /// Milliseconds from the X server's time stamp of a motion (`eventMilliseconds`, 32 bits) to
    /// `frame` (seconds), or nil if the stamp is not on the monotonic clock (more than a second from
    /// `delivered`, when GTK delivered it). Xvfb stamps events with the monotonic clock in milliseconds,
    /// so this holds the time before GTK delivered the motion too, to the millisecond.
    static func fromEvent(_ eventMilliseconds: UInt32, delivered: Double, frame: Double) -> Double? {
        let deliveredMilliseconds = Int64(delivered * 1000)
        let wrap = Int64(1) << 32
        var event = deliveredMilliseconds - deliveredMilliseconds % wrap + Int64(eventMilliseconds)
        if event > deliveredMilliseconds + wrap / 2 { event -= wrap }
        guard abs(deliveredMilliseconds - event) <= 1000 else { return nil }
        return frame * 1000 - Double(event)
    }

    /// Starts `program` (the panel, or the plain window with its scale), presses on its track at x 12,
    /// moves between the end ticks and lets go.
    private func drag(_ program: String, environment: [String: String], dump: String?) throws -> Drag {
        var result = Drag()
        let started = monotonicNow()
        let window = try PanelProcess(program, environment: environment)
        defer { window.stop() }
        guard
            let first = window.lines.first(where: { $0.hasPrefix("frame ") }).flatMap(PanelProcess.time)
        else {
            throw BenchError("\(program) drew no frame")
        }
        result.startup = (first - started) * 1000
        try window.press(at: 12)
        for step in 0..<Self.moves {
            let (x, index) = step % 2 == 0 ? (324, 4) : (12, 0)
            let before = window.lines.count
            try window.move(to: x)
            var latency: Double?
            var fromEvent: Double?
            waitUntil(timeout: 10, interval: 0.002) {
                let new = window.lines.dropFirst(before)
                guard let motionLine = new.first(where: { $0.hasPrefix("motion ") }),
                    let motion = PanelProcess.time(motionLine),
                    let frame = new.first(where: { $0.hasPrefix("frame \(index) ") }).flatMap(
                        PanelProcess.time)
                else {
                    return false
                }
                latency = (frame - motion) * 1000
                let fields = motionLine.split(separator: " ")
                fromEvent =
                    fields.count == 3
                    ? UInt32(fields[1]).flatMap { Self.fromEvent($0, delivered: motion, frame: frame) }
                    : nil
                return true
            }
            guard let latency else {
                throw BenchError(
                    "\(program): no frame showed the thumb at \(index) after a move to \(x)")
            }
            result.moves.append(latency)
            result.fromEvent.append(fromEvent)
        }
        try window.release()
        Thread.sleep(forTimeInterval: 0.5)
        if let dump {
            try? window.child.stdout.write(toFile: dump, atomically: true, encoding: .utf8)
        }
        result.pss = Self.pss(window.child.pid)
        return result
    }

    private func measure() throws -> String {
        let display = try VirtualDisplay()
        defer { display.stop() }
        let fixture = try DaemonFixture()
        var environment = fixture.environment
        environment["DISPLAY"] = display.display
        environment["GTK_A11Y"] = "none"
        let dump = ProcessInfo.processInfo.environment["SNAPSIZE_BENCH_DUMP"]
        // The first move of each drag, made right after the press, is counted apart: it comes within
        // a frame of the press's own frame (PanelWindow.answerWaitMicroseconds says why that matters).
        // The plain window's GtkScale is dragged the same way after each start of the panel: what GTK
        // itself takes from a motion to the frame that shows it.
        var panelDrags: [Drag] = [], plainDrags: [Drag] = []
        // Start 0 is the first in a new home: mesa's shader cache (the home's ~/.cache) is empty, and
        // the software renderer compiles a shader the first time the window draws each look, its first
        // frame and the drag's first state (the buttons turned off) among them. A person pays that on
        // the panel's first launches only, so it is reported apart; the other rows are the later starts.
        var newHome = Drag()
        for start in 0...Self.starts {
            let panelDrag = try drag(
                panel, environment: environment, dump: dump.map { "\($0)-\(start).log" })
            if start == 0 {
                newHome = panelDrag
                continue
            }
            panelDrags.append(panelDrag)
            plainDrags.append(
                try drag(plain, environment: environment, dump: dump.map { "\($0)-plain-\(start).log" }))
        }
        let latencies = panelDrags.flatMap(\.moves), plainLatencies = plainDrags.flatMap(\.moves)
        let firstMoves = panelDrags.map { $0.moves[0] },
            laterMoves = panelDrags.flatMap { $0.moves.dropFirst() }
        let plainFirst = plainDrags.map { $0.moves[0] },
            plainLater = plainDrags.flatMap { $0.moves.dropFirst() }
        let panelFromEvent = panelDrags.flatMap { $0.fromEvent.compactMap { $0 } },
            plainFromEvent = plainDrags.flatMap { $0.fromEvent.compactMap { $0 } }
        let startups = panelDrags.map(\.startup)
        let panelPSS = panelDrags.map(\.pss), plainPSS = plainDrags.map(\.pss)
        let p99 = Statistics.percentile(latencies, 0.99)
        let panelMiB = Statistics.median(panelPSS) / 1024, plainMiB = Statistics.median(plainPSS) / 1024
        /// A row of milliseconds: the panel's, the plain scale's and their ratio.
        /// "-" for a window that gave no samples (a panel whose trace has no event time stamps).
        func beside(_ title: String, _ panel: Double?, _ plain: Double?, target: String = "")
            -> (String, String, String, String, String)
        {
            let ratio = panel.flatMap { panel in plain.map { format(panel / $0, 2) + "x" } }
            return (
                title, panel.map { format($0, 2) } ?? "-", plain.map { format($0, 2) } ?? "-",
                ratio ?? "-", target
            )
        }
        /// The `p` percentile of `samples`, nil without any.
        func percentile(_ samples: [Double], _ p: Double) -> Double? {
            samples.isEmpty ? nil : Statistics.percentile(samples, p)
        }
        let rows: [(String, String, String, String, String)] = [
            beside(
                "pointer motion -> frame with the new thumb, p50 (ms)",
                Statistics.percentile(latencies, 0.5), Statistics.percentile(plainLatencies, 0.5)),
            beside(
                "pointer motion -> frame with the new thumb, p99 (ms)", p99,
                Statistics.percentile(plainLatencies, 0.99),
                target: "<= \(format(Self.frameBudgetMilliseconds, 1)) "
                    + (p99 <= Self.frameBudgetMilliseconds ? "met" : "MISSED")),
            beside(
                "  the first move after each press, max (ms)", firstMoves.max() ?? 0,
                plainFirst.max() ?? 0),
            beside(
                "  the other moves, p99 (ms)", Statistics.percentile(laterMoves, 0.99),
                Statistics.percentile(plainLater, 0.99)),
            beside(
                "from the X server's event time (held by GTK till its next frame), p50 (ms)",
                percentile(panelFromEvent, 0.5), percentile(plainFromEvent, 0.5)),
            beside("  p99 (ms)", percentile(panelFromEvent, 0.99), percentile(plainFromEvent, 0.99)),
            beside(
                "  the first move after each press, max (ms)",
                panelDrags.compactMap { $0.fromEvent.first ?? nil }.max(),
                plainDrags.compactMap { $0.fromEvent.first ?? nil }.max()),
            (
                "start -> first frame (ms)", format(Statistics.median(startups), 0),
                format(Statistics.median(plainDrags.map(\.startup)), 0), "-", ""
            ),
            (
                "a new home's first start (no shader cache): start -> first frame (ms)",
                format(newHome.startup, 0), "-", "-", ""
            ),
            ("  its first move after the press (ms)", format(newHome.moves.first ?? 0, 2), "-", "-", ""),
            (
                "PSS after a drag session (MiB)", format(panelMiB, 2), format(plainMiB, 2),
                format(panelMiB / plainMiB, 2) + "x", ""
            )
        ]
        var text =
            "snapsize-bench, the panel under Xvfb: \(Self.starts) starts of snapsize-panel after a new home's first, "
            + "\(Self.moves) pointer moves between the end ticks each (\(latencies.count) samples); start and PSS "
            + "medians over those starts\n"
        let titles = ("", "panel", "plain GTK 4 (GtkScale)", "ratio", "target")
        let all = [titles] + rows
        let widths = [
            all.map(\.0.count).max()!, all.map(\.1.count).max()!, all.map(\.2.count).max()!,
            all.map(\.3.count).max()!
        ]
        func pad(_ s: String, _ width: Int, left: Bool) -> String {
            let space = String(repeating: " ", count: max(0, width - s.count))
            return left ? s + space : space + s
        }
        for (index, row) in all.enumerated() {
            text +=
                [
                    pad(row.0, widths[0], left: true), pad(row.1, widths[1], left: false),
                    pad(row.2, widths[2], left: false),
                    pad(row.3, widths[3], left: false), row.4
                ].joined(separator: "  ").trimmingTrailingSpaces() + "\n"
            if index == 0 {
                text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            }
        }
        return text
    }

    /// PSS in KiB (smaps_rollup).
    private static func pss(_ pid: pid_t) -> Double {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("Pss:") {
            return Double(String(line.dropFirst(4).filter { $0.isNumber })) ?? 0
        }
        return 0
    }
}
