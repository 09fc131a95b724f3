import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import SnapService
import TestSupport

/// Hostile surroundings of the process itself: huge messages, a stderr nobody reads,
/// signals a service manager sends, bad state files in quick succession.
@Suite("Reliability: the process under hostile surroundings", .serialized)
struct ProcessFaultTests {
    @Test("10 MB messages are refused, and memory returns to within 1.5x of idle")
    func hugeMessages() throws {
        let fixture = try DaemonFixture()
        guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
        let client = try fixture.client()
        for _ in 0..<50 { _ = try client.call("Increment") }
        let idle = try residentKiB(pid)
        let huge = DBusValue.string(String(repeating: "x", count: 10 * 1024 * 1024))
        var figures: [Int] = []
        // Three: glibc's dynamic threshold lets the FIRST big block go back to the system and keeps later ones.
        for _ in 0..<3 {
            #expect(throws: MethodError.self) { try client.call("SetSize", [huge]) }
            _ = try client.call("Decrement")
            figures.append(try residentKiB(pid))
        }
        if ProcessInfo.processInfo.environment["SNAPSIZE_SANITIZER"] == nil {
            #expect(
                figures.allSatisfy { Double($0) <= 1.5 * Double(idle) },
                "RSS idle \(idle) KiB, after each \(figures) KiB")
        }
        print("10 MB messages: RSS idle \(idle) KiB, after each of three \(figures) KiB")
    }

    @Test("stderr a pipe whose reader is gone: logging never kills the daemon")
    func closedStderr() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        // A default config file it cannot use: a line is logged at once.
        try fixture.writeConfig("sizes = nonsense\n")
        let daemon = try startSnapsized(
            ["--no-accessibility"], environment: fixture.environment,
            busAddress: fixture.bus.address, stderr: .closedPipe)
        defer { daemon.terminate() }
        let client = try fixture.client()
        #expect(try client.call("Increment") == [.uint32(3), .int32(80), .boolean(false)])
        kill(daemon.pid, SIGHUP)  // a reload logs a line too
        #expect(try client.property("SelectedSize") == .int32(80))
        #expect(daemon.isRunning)
    }

    /// A running daemon without a config file (`fixture.writeConfig` writes one before a SIGHUP).
    private func daemonWithoutConfig() throws -> (DaemonFixture, ChildProcess) {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.start()
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        return (fixture, daemon)
    }

    @Test(
        "SIGHUP reloads the config file: applies the preview timeout, names what waits for a restart, survives a broken file"
    )
    func reload() throws {
        let (fixture, daemon) = try daemonWithoutConfig()
        let client = try fixture.client()
        func reloaded(_ text: String, logging expected: String) -> Bool {
            (try? fixture.reload(config: text)) == true
                && waitUntil(timeout: 5) { daemon.stderr.contains(expected) }
        }
        /// A preview left alone: ended by the preview timeout within `seconds`?
        func previewEnds(within seconds: Double) throws -> Bool {
            _ = try client.call("Preview", [.double(100)])
            return waitUntil(timeout: seconds, interval: 0.05) {
                (try? client.property("Previewing")) == .boolean(false)
            }
        }
        #expect(
            reloaded("preview-timeout = 1\ninitial = 40\n", logging: "preview-timeout 30.0 -> 1.0"),
            "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains("only taking effect at the next start: initial"), "\(daemon.stderr)")
        #expect(try previewEnds(within: 8), "the 1 s preview timeout applies after the reload")
        #expect(reloaded("sizes = nonsense\n", logging: "running settings stay"), "\(daemon.stderr)")
        #expect(daemon.isRunning)
        #expect(
            try previewEnds(within: 8), "the running settings stayed: still 1 s, not the default 30 s")
        #expect(try client.call("Increment") == [.uint32(3), .int32(80), .boolean(false)])
    }

    @Test("SIGHUP with a new label and unit: the words change live, PropertiesChanged names them")
    func reloadWords() throws {
        let (fixture, daemon) = try daemonWithoutConfig()
        let watcher = try fixture.client()
        watcher.listen()
        try fixture.writeConfig("label = Brush\n")
        kill(daemon.pid, SIGHUP)
        #expect(watcher.pump { !watcher.propertiesChanged.isEmpty }, "\(daemon.stderr)")
        #expect(watcher.propertiesChanged.first == ["Label": .string("Brush")])
        #expect(try fixture.client().property("Label") == .string("Brush"))
        #expect(daemon.stderr.contains("applied label/unit"), "\(daemon.stderr)")
        try fixture.writeConfig("label = Brush\nunit = dots\n")
        kill(daemon.pid, SIGHUP)
        #expect(watcher.pump { watcher.propertiesChanged.count == 2 }, "\(daemon.stderr)")
        let texts = DBusValue.array(
            elementSignature: "s", [20, 40, 60, 80, 100].map { .string("\($0) dots") })
        #expect(watcher.propertiesChanged.last == ["ValueTexts": texts, "ValueText": .string("60 dots")])
        // gdbus, a real client, reads the new words.
        let read = try fixture.gdbusCall(
            "org.freedesktop.DBus.Properties.Get", "org.snapsize.SizeSelector1", "Label")
        #expect(read.stdout.contains("'Brush'"), "\(read)")
        // A broken file keeps the running words; only ConfigProblems is announced, saying why.
        try fixture.writeConfig("label = Other\nsizes = nonsense\n")
        kill(daemon.pid, SIGHUP)
        #expect(
            waitUntil(timeout: 5) { daemon.stderr.contains("running settings stay") }, "\(daemon.stderr)"
        )
        watcher.settle(0.3)
        #expect(
            watcher.propertiesChanged.count == 3
                && watcher.propertiesChanged.last.map { Array($0.keys) } == ["ConfigProblems"],
            "\(watcher.propertiesChanged)")
        #expect(try fixture.client().property("ValueText") == .string("60 dots"))
        #expect(try fixture.client().property("Label") == .string("Brush"))
    }

    @Test(
        "SIGHUP and SIGTERM while snapsized starts (its bus not answering yet): handled once it serves, never fatal"
    )
    func signalsDuringStartUp() throws {
        guard let executable = productPath("snapsized") else {
            throw TestFailure("snapsized is not built")
        }
        for signo in [SIGHUP, SIGTERM] {
            let fixture = try DaemonFixture(startDaemon: false)
            // The session bus accepts the connection and does not answer: start-up waits for it.
            let bus = fixture.bus.daemon.pid
            kill(bus, SIGSTOP)
            defer { kill(bus, SIGCONT) }
            let daemon = try ChildProcess(
                executable, ["--no-accessibility"], environment: fixture.environment, stderr: .file)
            defer { daemon.terminate() }
            // Connected (a socket among its files: its signals are blocked by then) and waiting.
            func connected() -> Bool {
                let fds =
                    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd"))
                    ?? []
                return fds.contains {
                    (try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(daemon.pid)/fd/\($0)"))?.hasPrefix("socket:") == true
                }
            }
            #expect(
                waitUntil(timeout: 10) { connected() && sleepsInSystemCall(daemon.pid) },
                "snapsized never waited for its bus")
            kill(daemon.pid, signo)
            kill(bus, SIGCONT)
            let client = try fixture.client()
            if signo == SIGHUP {
                // It takes its name once the bus answers, serves, and did the reload once it could.
                let probe = try Connection(address: fixture.bus.address)
                #expect(
                    waitUntil(timeout: 10) {
                        (try? probe.nameHasOwner(SelectorBus.name.rawValue, timeoutMilliseconds: 2000))
                            == true || !daemon.isRunning
                    }, "snapsized never took its name")
                #expect(try client.call("Increment") == [.uint32(3), .int32(80), .boolean(false)])
                #expect(
                    waitUntil(timeout: 10) { daemon.stderr.contains("reload (SIGHUP)") },
                    "\(daemon.stderr)")
                #expect(daemon.isRunning)
            } else {
                // An orderly stop: exit 0, as a SIGTERM while serving gives.
                #expect(
                    waitUntil(timeout: 10) { !daemon.isRunning },
                    "SIGTERM during start-up was never handled")
                #expect(daemon.wait() == 0, "\(daemon.stderr)")
            }
        }
    }

    @Test("two corrupt state files within one second: each is kept, none overwritten")
    func badFilesInOneSecond() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        // Earlier copies under this second's name and the next one's, so the test does not depend on the clock.
        let now = Int(Date().timeIntervalSince1970)
        for seconds in [now, now + 1] {
            try "earlier \(seconds)\n".write(
                toFile: "\(path).bad-\(seconds)", atomically: false, encoding: .utf8)
        }
        var moved: [String] = []
        for content in ["first bad\n", "second bad\n"] {
            try content.write(toFile: path, atomically: false, encoding: .utf8)
            guard case .unusable(_, let target?) = StateStore(path: path).load() else {
                Issue.record("\(content) was not moved aside")
                continue
            }
            moved.append(target)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == content)
        }
        for seconds in [now, now + 1] {
            #expect(
                try String(contentsOfFile: "\(path).bad-\(seconds)", encoding: .utf8)
                    == "earlier \(seconds)\n")
        }
        #expect(Set(moved).count == 2, "kept as \(moved)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
