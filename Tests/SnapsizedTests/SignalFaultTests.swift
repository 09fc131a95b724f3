import Foundation
import Synchronization
import Testing
@testable import SnapService
import TestSupport

/// Signals a service manager or a script sends in floods: a termination request is never lost,
/// and any number of SIGHUPs that arrive together are one reload.
@Suite("Reliability: signal floods", .serialized)
struct SignalFaultTests {
    /// Sends SIGHUP to `pid` as fast as one thread can until `stop()`, and counts what it sent.
    final class Flood: Sendable {
        let pid: pid_t
        let done = Atomic<Bool>(false)
        let sent = Atomic<Int>(0)
        let finished = Atomic<Bool>(false)

        init(_ pid: pid_t) {
            self.pid = pid
            Thread.detachNewThread { [self] in
                // Stops at once when the daemon has ended: its pid must not be signalled once reaped.
                while !done.load(ordering: .relaxed) && !hasEnded(pid) {
                    kill(pid, SIGHUP)
                    sent.add(1, ordering: .relaxed)
                }
                finished.store(true, ordering: .sequentiallyConsistent)
            }
        }

        func stop() {
            done.store(true, ordering: .sequentiallyConsistent)
            _ = waitUntil(timeout: 10) { finished.load(ordering: .sequentiallyConsistent) }
        }
    }

    @Test("SIGTERM during a SIGHUP flood ends the daemon (exit 0)")
    func terminationDuringReloadFlood() throws {
        let rounds = Self.stress ? 10 : 1
        for round in 1...rounds {
            let fixture = try DaemonFixture(startDaemon: false)
            try fixture.writeConfig(Self.longConfig)
            try fixture.start()
            guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
            let flood = Flood(daemon.pid)
            // The flood is being served (reloads logged), and has filled the daemon's self-pipe many times over.
            #expect(
                waitUntil(timeout: 30) {
                    daemon.stderr.contains("reload (SIGHUP)")
                        && flood.sent.load(ordering: .relaxed) > Self.floodSize
                },
                "round \(round): \(daemon.stderr.suffix(500))")
            kill(daemon.pid, SIGTERM)
            let ended = waitUntil(timeout: 10) { hasEnded(daemon.pid) }
            flood.stop()
            #expect(ended, "round \(round): SIGTERM was lost in the flood of SIGHUP")
            let status = ended ? daemon.wait() : daemon.forceKill()
            #expect(status == 0, "round \(round): \(daemon.stderr.suffix(500))")
            print(
                "SIGHUP flood, round \(round): \(sent(flood)) SIGHUPs, \(reloads(daemon)) reloads, exited \(status) after SIGTERM"
            )
        }
    }

    @Test("a SIGHUP flood is coalesced: once it ends, calls are answered and no reloads are left queued")
    func reloadFloodCoalesced() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.writeConfig(Self.longConfig)
        try fixture.start()
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        let flood = Flood(daemon.pid)
        #expect(
            waitUntil(timeout: 30) {
                daemon.stderr.contains("reload (SIGHUP)") && sent(flood) > Self.floodSize
            })
        flood.stop()
        let client = try fixture.client()
        #expect(try client.call("Increment") == [.uint32(3), .int32(80), .boolean(false)])
        // Whatever the flood left pending is at most one more reload, done within a round.
        _ = try client.call("Decrement")
        let after = reloads(daemon)
        Thread.sleep(forTimeInterval: 1)
        #expect(
            reloads(daemon) <= after + 1,
            "reloads went on after the flood: \(after) -> \(reloads(daemon))")
        print("SIGHUP flood: \(sent(flood)) SIGHUPs, \(reloads(daemon)) reloads")
        #expect(fixture.stop() == 0)
    }

    @Test(
        "2,000 SIGHUPs write a bounded number of log lines, saying how many they merged; the last one's file is applied"
    )
    func floodLogLines() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.writeConfig("label = Brush\n")
        try fixture.start()
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        let client = try fixture.client()
        let started = Date()
        // Spread over about half a second, as a script's loop sends them: each can wake the daemon
        // (sent back to back they reach it as a few, the kernel and the loop merging them).
        for _ in 1..<2000 { kill(daemon.pid, SIGHUP); usleep(250) }
        try fixture.writeConfig("label = Pen\n")
        kill(daemon.pid, SIGHUP)
        #expect(
            waitUntil(timeout: 10) { (try? client.property("Label")) == .string("Pen") },
            "the last SIGHUP is never lost")
        // Whatever is still due (a reload at the end of a spacing) comes within one spacing.
        _ = waitUntil(timeout: 2 * ReloadRequests.spacing) { false }
        let lines = daemon.stderr.split(separator: "\n").filter { $0.contains("reload (SIGHUP)") }
        let elapsed = Date().timeIntervalSince(started)
        // At most one reload at once, then one per spacing while SIGHUPs keep coming.
        #expect(
            lines.count <= 2 + Int(elapsed / ReloadRequests.spacing),
            "\(lines.count) lines in \(elapsed) s")
        let merged = lines.compactMap { line in
            line.firstRange(of: "merging ").flatMap {
                Int(line[$0.upperBound...].prefix { $0.isNumber })
            }
        }
        #expect(!merged.isEmpty && lines.count + merged.reduce(0, +) <= 2000, "\(lines)")
        print(
            "2,000 SIGHUPs: \(lines.count) log lines in \(String(format: "%.2f", elapsed)) s, merging \(merged)"
        )
        #expect(fixture.stop() == 0)
    }

    static let stress = ProcessInfo.processInfo.environment["SNAPSIZE_STRESS"] != nil

    /// More SIGHUPs than a self-pipe holds (64 KiB) beyond what the daemon reloads meanwhile
    /// (a few hundred in the flood's seconds, with the long config file below).
    static let floodSize = stress ? 200_000 : 80_000

    /// A config file of about 60 KB (mostly comments), so that each reload takes a while and the
    /// flood outruns the reloads, as it does on a loaded machine.
    static let longConfig =
        "label = Brush\n"
        + String(repeating: "# " + String(repeating: "x", count: 76) + "\n", count: 760)

    private func sent(_ flood: Flood) -> Int { flood.sent.load(ordering: .relaxed) }

    private func reloads(_ daemon: ChildProcess) -> Int {
        daemon.stderr.components(separatedBy: "reload (SIGHUP)").count - 1
    }
}
