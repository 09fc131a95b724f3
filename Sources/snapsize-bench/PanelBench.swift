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

    private func measure() throws -> String {
        let display = try VirtualDisplay()
        defer { display.stop() }
        let fixture = try DaemonFixture()
        var environment = fixture.environment
        environment["DISPLAY"] = display.display
        environment["GTK_A11Y"] = "none"
        // The first move of each drag, made right after the press, is counted apart: it comes within
        // a frame of the press's own frame (PanelWindow.answerWaitMicroseconds says why that matters).
        var firstMoves: [Double] = [], laterMoves: [Double] = []
        var latencies: [Double] = [], startups: [Double] = [], panelPSS: [Double] = [],
            plainPSS: [Double] = []
        // Start 0 is the first in a new home: mesa's shader cache (the home's ~/.cache) is empty, and
        // the software renderer compiles a shader the first time the window draws each look, its first
        // frame and the drag's first state (the buttons turned off) among them. A person pays that on
        // the panel's first launches only, so it is reported apart; the other rows are the later starts.
        var newHome: (startup: Double, firstMove: Double)?
        for start in 0...Self.starts {
            var moves: [Double] = []
            let started = monotonicNow()
            let panel = try PanelProcess(self.panel, environment: environment)
            defer { panel.stop() }
            guard
                let first = panel.lines.first(where: { $0.hasPrefix("frame ") }).flatMap(
                    PanelProcess.time)
            else {
                throw BenchError("snapsize-panel drew no frame")
            }
            let startup = (first - started) * 1000
            try panel.press(at: 12)
            for step in 0..<Self.moves {
                let (x, index) = step % 2 == 0 ? (324, 4) : (12, 0)
                let before = panel.lines.count
                try panel.move(to: x)
                var latency: Double?
                waitUntil(timeout: 10, interval: 0.002) {
                    let new = panel.lines.dropFirst(before)
                    guard
                        let motion = new.first(where: { $0.hasPrefix("motion ") }).flatMap(
                            PanelProcess.time),
                        let frame = new.first(where: { $0.hasPrefix("frame \(index) ") }).flatMap(
                            PanelProcess.time)
                    else {
                        return false
                    }
                    latency = (frame - motion) * 1000
                    return true
                }
                guard let latency else {
                    throw BenchError("no frame showed the thumb at \(index) after a move to \(x)")
                }
                moves.append(latency)
            }
            try panel.release()
            Thread.sleep(forTimeInterval: 0.5)
            if let dump = ProcessInfo.processInfo.environment["SNAPSIZE_BENCH_DUMP"] {
                try? panel.child.stdout.write(
                    toFile: "\(dump)-\(start).log", atomically: true, encoding: .utf8)
            }
            if start == 0 {
                newHome = (startup, moves[0])
                continue
            }
            startups.append(startup)
            latencies += moves
            firstMoves.append(moves[0])
            laterMoves += moves.dropFirst()
            panelPSS.append(Self.pss(panel.child.pid))

            let anchor = try ChildProcess(plain, [], environment: environment)
            defer { anchor.terminate() }
            let anchorWindow = try visibleWindow(of: anchor.pid, environment: environment)
            for step in 0..<Self.moves {
                try xdotool(
                    ["mousemove", "--window", anchorWindow, String(10 + step % 2 * 50), "20"],
                    environment: environment)
            }
            Thread.sleep(forTimeInterval: 0.5)
            plainPSS.append(Self.pss(anchor.pid))
        }
        let p99 = Statistics.percentile(latencies, 0.99)
        let panelMiB = Statistics.median(panelPSS) / 1024, plainMiB = Statistics.median(plainPSS) / 1024
        let rows: [(String, String, String, String, String)] = [
            (
                "pointer motion -> frame with the new thumb, p50 (ms)",
                format(Statistics.percentile(latencies, 0.5), 2), "-", "-", ""
            ),
            (
                "pointer motion -> frame with the new thumb, p99 (ms)", format(p99, 2), "-", "-",
                "<= \(format(Self.frameBudgetMilliseconds, 1)) "
                    + (p99 <= Self.frameBudgetMilliseconds ? "met" : "MISSED")
            ),
            (
                "  the first move after each press, max (ms)", format(firstMoves.max() ?? 0, 2), "-",
                "-", ""
            ),
            (
                "  the other moves, p99 (ms)", format(Statistics.percentile(laterMoves, 0.99), 2), "-",
                "-", ""
            ),
            ("start -> first frame (ms)", format(Statistics.median(startups), 0), "-", "-", ""),
            (
                "a new home's first start (no shader cache): start -> first frame (ms)",
                format(newHome?.startup ?? 0, 0), "-", "-", ""
            ),
            (
                "  its first move after the press (ms)", format(newHome?.firstMove ?? 0, 2), "-", "-",
                ""
            ),
            (
                "PSS after a drag session (MiB)", format(panelMiB, 2), format(plainMiB, 2),
                format(panelMiB / plainMiB, 2) + "x", ""
            )
        ]
        var text =
            "snapsize-bench, the panel under Xvfb: \(Self.starts) starts of snapsize-panel after a new home's first, "
            + "\(Self.moves) pointer moves between the end ticks each (\(latencies.count) samples); start and PSS "
            + "medians over those starts\n"
        let titles = ("", "panel", "plain GTK 4", "ratio", "target")
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
