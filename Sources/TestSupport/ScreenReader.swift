import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A headless X server (`Xvfb -displayfd`, so parallel jobs never pick the same display number).
public final class VirtualDisplay: Sendable {
    /// e.g. ":3".
    public let display: String
    public let server: ChildProcess

    public init(timeout: Double = 30) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            throw TestFailure("Xvfb is not installed (apt install xvfb; `make test` does it)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        // -displayfd 1: Xvfb writes the display number it chose to our stdout file once it is ready.
        let server = try ChildProcess(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            environment: environment)
        self.server = server
        var number = ""
        let ready = waitUntil(timeout: timeout, interval: 0.02) {
            number = server.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return server.stdout.hasSuffix("\n") || !server.isRunning
        }
        guard ready, server.isRunning, !number.isEmpty else {
            let log = server.stderr, running = server.isRunning
            server.terminate()
            throw TestFailure(
                "Xvfb did not start within \(timeout) s (\(running ? "still running" : "exited")): \(log)"
            )
        }
        display = ":" + number
    }

    deinit { stop() }

    public func stop() { server.terminate() }
}

/// Real Orca with a speech-capture backend (Tests/AccessibilityTests/Orca) and its own prefs folder.
///
/// Orca refuses to start while ANY other `orca` process of this user runs (and `--replace` would
/// kill them all, so it is never used). Runs are therefore serialized: an flock on a per-user
/// lock file between our own tests, then a wait until no other orca process is left.
public final class ScreenReader: Sendable {
    public let capturePath: String
    public let debugPath: String
    public let process: ChildProcess
    private let lockFD: Int32

    /// `prefsSource` holds user-settings.conf, capturespeech.py and orca-customizations.py; they
    /// are copied into `workDirectory`/prefs. `environment` needs DISPLAY and the buses; `ready` is
    /// what Orca says once it runs, in the language of `environment` ("Leitor de tela ativado.").
    public init(
        prefsSource: String, environment: [String: String], workDirectory: String,
        ready: String = "Screen reader on.", waitForOthers: Double = 300, timeout: Double = 30
    ) throws {
        let orca = "/usr/bin/orca"
        guard DesktopRoot.isInstalled(orca) else {
            throw TestFailure(
                "orca is not installed: the Orca test needs Debian's orca package "
                    + "(`make test` installs it; or apt install orca)")
        }
        let prefs = workDirectory + "/prefs"
        try FileManager.default.createDirectory(atPath: prefs, withIntermediateDirectories: true)
        for file in ["user-settings.conf", "capturespeech.py", "orca-customizations.py"] {
            try FileManager.default.copyItem(
                atPath: prefsSource + "/" + file, toPath: prefs + "/" + file)
        }
        capturePath = workDirectory + "/speech.txt"
        debugPath = workDirectory + "/orca.debug"

        let lockFD = open("/tmp/snapsize-orca-\(getuid()).lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw TestFailure("cannot open the Orca lock file") }
        guard waitUntil(timeout: waitForOthers, interval: 0.1, { flock(lockFD, LOCK_EX | LOCK_NB) == 0 })
        else {
            close(lockFD)
            throw TestFailure("another snapsize Orca test held the lock for \(waitForOthers) s")
        }
        guard waitUntil(timeout: waitForOthers, interval: 0.2, { !ScreenReader.otherOrcaRunning() })
        else {
            close(lockFD)
            throw TestFailure(
                "another orca process of this user kept running for \(waitForOthers) s; "
                    + "Orca refuses to start next to it")
        }
        self.lockFD = lockFD
        var env = environment
        env["ORCA_SPEECH_CAPTURE"] = capturePath
        env["NO_AT_BRIDGE"] = "1"  // Orca's own GTK stays off the bus
        let process: ChildProcess
        do {
            process = try DesktopRoot.start(
                orca, ["-u", prefs, "--debug-file", debugPath], environment: env)
        } catch {
            close(lockFD)
            throw error
        }
        self.process = process
        guard
            waitUntil(
                timeout: timeout, interval: 0.05, { self.speech.contains(ready) || !process.isRunning }),
            process.isRunning
        else {
            let why = process.stdout + process.stderr
            stop()
            throw TestFailure("Orca did not say \"\(ready)\" within \(timeout) s: \(why)")
        }
    }

    deinit { stop() }

    /// Stops Orca by PID and releases the lock. Idempotent.
    public func stop() {
        process.terminate(timeout: 5)
        flock(lockFD, LOCK_UN)
        close(lockFD)
    }

    /// Everything Orca said so far, one utterance per element.
    public var speech: [String] { captured("SPEAK") }

    /// Every braille line Orca showed so far, whole (orca-customizations.py logs them), oldest first.
    public var braille: [String] { captured("BRAILLE") }

    /// Each locus of focus Orca set so far, as "push button | Apply" (orca-customizations.py logs them).
    public var locus: [String] { captured("LOCUS") }

    /// The capture file's lines of one kind (time, kind, text per line).
    public func captured(_ kind: String) -> [String] {
        let text = (try? String(contentsOfFile: capturePath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            return columns.count == 3 && columns[1] == kind ? String(columns[2]) : nil
        }
    }

    /// The raw capture file (time, kind, text per line).
    public var transcript: String { (try? String(contentsOfFile: capturePath, encoding: .utf8)) ?? "" }

    public var debugLog: String { (try? String(contentsOfFile: debugPath, encoding: .utf8)) ?? "" }

    static func otherOrcaRunning() -> Bool {
        (try? run(
            "pgrep", ["-u", String(getuid()), "-x", "orca"],
            environment: ProcessInfo.processInfo.environment,
            timeout: 5))?.status == 0
    }
}
