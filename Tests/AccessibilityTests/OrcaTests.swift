import Foundation
import Testing
import DBusKit
import TestSupport

let orcaPrefsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Orca").path

/// Real Orca under Xvfb, speaking into a capture file and showing braille (no display connected: the
/// lines it would write to one, from its debug output), while a real GTK 3 window in another process
/// holds focus: every committed change is heard exactly once and shown, without anyone losing focus.
///
/// Orca 43 (this machine) in `make test`; the same scenarios with Orca 48 from a Debian 13 chroot in
/// `make test-orca48` (SNAPSIZE_DESKTOP_ROOT, see DesktopRoot). One Orca start for all the scenarios.
@Suite("Real Orca speaks the slider")
struct OrcaTests {
    @Test(
        """
        speech: the first press after activation, single changes, a burst, a held key, Focus(), focus given back, \
        largest size, snapsizectl undo and redo, the first Focus after activation, --announce never
        """)
    func speechScenarios() throws {
        let display = try VirtualDisplay()
        let fixture = try SliderFixture(sessionExtras: ["DISPLAY": display.display], activatable: true)
        let window = try FocusWindow(
            environment: fixture.stack.environment, workDirectory: fixture.bus.directory)
        let orca = try ScreenReader(
            prefsSource: orcaPrefsDirectory, environment: fixture.stack.environment,
            workDirectory: fixture.bus.directory)
        let speech = SpeechLog(orca)
        /// Calls the daemon and notes the reply in the transcript ("DO" lines, written once the reply
        /// is in), so the report shows what was spoken after what, and how long after the reply.
        @discardableResult
        func call(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
            let reply = try fixture.client.selector(member, arguments)
            speech.note(
                ([member] + arguments.map { $0.asUInt32.map(String.init) ?? "\($0)" }).joined(
                    separator: " "))
            return reply
        }
        /// Runs the built snapsizectl on this desktop, as a key bound to it would.
        func ctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            guard let snapsizectl = productPath("snapsizectl") else {
                throw TestFailure("snapsizectl is not built")
            }
            return try run(snapsizectl, arguments, environment: fixture.stack.environment, timeout: 20)
        }
        defer {
            print("Orca transcripts (\(orcaVersion())):\n" + speech.report)
            orca.stop()
            window.stop()
            if let pid = try? fixture.ownerPID() { kill(pid, SIGTERM) }
        }
        #expect(
            waitUntil(timeout: 10) { orca.locus.last?.hasPrefix("text |") == true },
            "Orca's locus starts in the GTK window's entry: \(orca.locus)")
        /// Braille: the lines Orca put on the display since `markBraille()` (whole lines, as a person pans).
        var brailleStart = 0
        func markBraille() { brailleStart = orca.braille.count }
        func brailleSince() -> [String] { Array(orca.braille.dropFirst(brailleStart)) }
        /// Waits until Orca shows a line containing `text`.
        func shows(_ text: String) -> Bool {
            waitUntil(timeout: 10) { brailleSince().contains { $0.contains(text) } }
        }
        /// The line at rest: after any flash message is over (Orca's brailleFlashTime is 2 s here).
        func lineAtRest() -> String {
            Thread.sleep(forTimeInterval: 3)
            return orca.braille.last ?? ""
        }

        // (1) The first press after login: Increment starts snapsized by D-Bus activation, before its slider
        // is on the accessibility bus; 60 -> 80 is heard once, no role word, the locus stays in GTK.
        speech.begin("1 first Increment, activating snapsized: 60 -> 80")
        markBraille()
        try call("Increment")
        #expect(speech.heard(["80 points"]), "\(speech.current)")
        // Braille: a flash of the value text alone.
        #expect(shows("80 points") && brailleSince().contains("80 points"), "\(brailleSince())")
        #expect(!speech.current.contains { $0.lowercased().contains("notification") })
        // Orca 43 keeps the notification in its history (the label's text), never an empty entry.
        #expect(
            orca.captured("HISTORY").allSatisfy { $0 == "'80 points'" }, "\(orca.captured("HISTORY"))")
        #expect(
            orca.locus.last?.hasPrefix("text |") == true,
            "Orca's locus of focus is still the GTK entry: \(orca.locus)")
        #expect(
            !(try fixture.python("inspect_slider.py").object("slider").strings("states").contains(
                "focused")),
            "the slider never claims focus by itself")

        // (2) Single changes, a quiet moment apart: each heard once (the report times them).
        speech.begin("2 five single changes: 80 -> 60 -> 80 -> 60 -> 80 -> 60")
        for (member, text) in [
            ("Decrement", "60 points"), ("Increment", "80 points"), ("Decrement", "60 points"),
            ("Increment", "80 points"), ("Decrement", "60 points")
        ] {
            speech.mark()
            try call(member)
            #expect(speech.heard([text]), "\(member): \(speech.current)")
        }

        // (3) Five changes within a few milliseconds, unfocused: at most two utterances, the last the final value.
        speech.begin("3 five changes at once, unfocused (60 -> 40 -> 20 -> 40 -> 20 -> 40)")
        for member in ["Decrement", "Decrement", "Increment", "Decrement", "Increment"] {
            try call(member)
        }
        #expect(waitUntil(timeout: 10) { speech.current.last == "40 points" }, "\(speech.current)")
        speech.settle()
        #expect(
            (1...2).contains(speech.current.count) && speech.current.last == "40 points",
            "\(speech.current)")

        // (4) A held key: twelve Increments 40 ms apart from 20. The first value at once, then at most
        // one utterance per window (SpeechTiming.window), the final one ("100 points, largest size") once.
        speech.begin("4 a held key: SetIndex 0, then twelve Increments 40 ms apart")
        try call("SetIndex", [.uint32(0)])
        speech.settle()
        speech.mark()
        for _ in 0..<12 {
            try call("Increment")
            Thread.sleep(forTimeInterval: 0.04)
        }
        #expect(
            waitUntil(timeout: 10) { speech.current.last == "100 points, largest size" },
            "\(speech.current)")
        speech.settle()
        #expect(
            speech.current.first == "40 points" && speech.current.count <= 4
                && speech.current.filter { $0 == "100 points, largest size" }.count == 1,
            "\(speech.current)")

        // (5) Focus() then Decrement: the slider is presented, then the new value once.
        speech.begin("5 Focus(), then Decrement 100 -> 80")
        markBraille()
        try call("Focus")
        // The slider first, nothing said for its frame; Orca 48 adds the percentage ("... 100 points 100 percent").
        #expect(
            waitUntil(timeout: 10) {
                speech.current.first?.hasPrefix("Circle size horizontal slider 100 points") == true
            },
            "\(speech.current)")
        #expect(shows("Circle size 100 points horizontal slider"), "\(brailleSince())")
        speech.settle()
        #expect(
            orca.locus.last == "slider | Circle size",
            "Orca keeps the slider as its locus of focus: \(orca.locus)")
        speech.mark()
        markBraille()
        try call("Decrement")
        // Spoken once, from the value event (Orca keeps the slider: no announcement on top of it), and
        // the braille line rewritten in place with the new value, which stays once any flash is over.
        #expect(speech.heard(["80 points"]), "\(speech.current)")
        #expect(shows("Circle size 80 points horizontal slider"), "\(brailleSince())")
        #expect(lineAtRest().contains("Circle size 80 points horizontal slider"), "\(brailleSince())")

        // (6) The GTK window takes focus back (its button): the slider follows, Increment is heard once.
        speech.begin("6 the GTK button takes focus back, then Increment 80 -> 100")
        speech.note("GTK: focus the Apply button")
        window.focus("button")
        #expect(
            waitUntil(timeout: 10) { orca.locus.last?.hasSuffix("| Apply") == true }, "\(orca.locus)")
        #expect(
            waitUntil(timeout: 10) {
                !((try? fixture.python("inspect_slider.py").object("slider").strings("states").contains(
                    "focused")) ?? true)
            }, "the slider gave focus up when the GTK button took it")
        speech.settle()
        speech.mark()
        #expect(orca.braille.last?.contains("Apply") == true, "\(brailleSince())")
        markBraille()
        try call("Increment")
        #expect(speech.heard(["100 points"]), "\(speech.current)")
        #expect(orca.locus.last?.hasSuffix("| Apply") == true, "\(orca.locus)")
        // Braille: the value flashes, then the GTK button's line is back.
        #expect(shows("100 points"), "\(brailleSince())")
        #expect(lineAtRest().contains("Apply"), "\(brailleSince())")

        // (7) Increment at 100: the value and that it is the largest size, once.
        speech.begin("7 Increment at 100")
        markBraille()
        #expect(try call("Increment") == [.uint32(4), .int32(100), .boolean(true)])
        #expect(speech.heard(["100 points, largest size"]), "\(speech.current)")
        #expect(shows("100 points, largest size"), "\(brailleSince())")

        // (8) Keys bound to `snapsizectl undo` and `redo`, pressed while working elsewhere: the size before
        // the last change (80, from (6)) is heard once, at once, and shown; then redo brings 100 back.
        for (command, size) in [("undo", 80), ("redo", 100)] {
            speech.begin("8 snapsizectl \(command): \(size == 80 ? "100 -> 80" : "80 -> 100")")
            markBraille()
            let result = try ctl([command])
            speech.note(
                "snapsizectl \(command) answered \(result.stdout.trimmingCharacters(in: .newlines))")
            #expect(result.status == 0 && result.stdout == "\(size)\n", "\(result)")
            #expect(speech.heard(["\(size) points"]), "\(speech.current)")
            #expect(
                shows("\(size) points") && brailleSince().contains("\(size) points"), "\(brailleSince())"
            )
            #expect(orca.locus.last?.hasSuffix("| Apply") == true, "\(orca.locus)")
        }

        // (9) The first Focus after activation: the new snapsized takes focus once its slider is on the bus.
        speech.begin("9 snapsized stopped; the first call is Focus, activating it")
        try fixture.stopActivated()
        speech.settle()
        speech.mark()
        try call("Focus")
        #expect(
            waitUntil(timeout: 10) {
                speech.current.contains { $0.hasPrefix("Circle size horizontal slider 60 points") }
            },
            "\(speech.current)")
        speech.settle()
        speech.note("GTK: focus the entry")
        window.focus("entry")
        #expect(waitUntil(timeout: 10) { orca.locus.last?.hasPrefix("text |") == true }, "\(orca.locus)")

        // (10) --announce never: nothing spoken, though Orca receives the value events.
        speech.begin("10 --announce never: Increment 60 -> 80, then Increment at 100")
        try fixture.stopActivated()
        try fixture.startDaemon(["--announce", "never"], environment: fixture.stack.environment)
        _ = try fixture.python("inspect_slider.py")
        let seen = orca.debugLog.components(separatedBy: "accessible-value").count
        try call("Increment")
        try call("SetIndex", [.uint32(4)])
        try call("Increment")
        #expect(
            waitUntil(timeout: 10) {
                orca.debugLog.components(separatedBy: "accessible-value").count > seen
            },
            "Orca received the value events")
        speech.settle()
        #expect(speech.current.isEmpty, "\(speech.current)")
    }

    @Test(
        "in Portuguese: Orca and the daemon under LANG=pt_BR.UTF-8 say the label, Orca's role words and the value"
    )
    func portuguese() throws {
        let locale = "pt_BR.UTF-8"
        try #require(
            localeInstalled(locale), "\(locale) is not installed: `make test` makes it (make locales)")
        _ = try compileCatalogs()
        let display = try VirtualDisplay()
        let fixture = try SliderFixture(
            sessionExtras: ["DISPLAY": display.display], daemonLanguage: locale)
        let orca = try ScreenReader(
            prefsSource: orcaPrefsDirectory,
            environment: withLanguage(fixture.stack.environment, LANG: locale),
            workDirectory: fixture.bus.directory, ready: "Leitor de tela ativado.")
        defer {
            print("Orca transcript (pt_BR):\n" + orca.transcript)
            orca.stop()
        }
        try fixture.client.selector("Focus")
        // Orca 43 joins the name, its own role words ("deslizador horizontal") and the valuetext.
        let presented = "Tamanho do círculo deslizador horizontal 60 pontos."
        #expect(waitUntil(timeout: 10) { orca.speech.contains(presented) }, "\(orca.speech)")
        try fixture.client.selector("Increment")
        #expect(waitUntil(timeout: 10) { orca.speech.contains("80 pontos") }, "\(orca.speech)")
        #expect(
            !orca.speech.contains { $0.contains("points") || $0.contains("Circle size") },
            "\(orca.speech)")
    }
}

/// What Orca says, scenario by scenario: utterances without the final period Orca 43 adds.
final class SpeechLog {
    let orca: ScreenReader
    private var start = 0
    /// The utterance count when Orca was last found quiet.
    private var quietAt = -1
    private var scenarios: [(name: String, start: Int)] = []

    init(_ orca: ScreenReader) { self.orca = orca }

    var all: [String] { orca.speech.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 } }
    /// Spoken since the last `begin` or `mark`.
    var current: [String] { Array(all.dropFirst(start)) }

    func begin(_ name: String) {
        settle()
        scenarios.append((name, orca.transcript.split(separator: "\n").count))
        mark()
    }

    /// Starts counting from here; the next `settle` waits for a full quiet period again.
    /// Adds a "DO" line to the capture file (O_APPEND, as Orca's own writes, so lines never overlap).
    func note(_ action: String) {
        let line = String(format: "%.3f\tDO\t%@\n", Date().timeIntervalSince1970, action)
        let fd = open(orca.capturePath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        _ = Array(line.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func mark() {
        start = orca.speech.count
        quietAt = -1
    }

    /// Waits (at most 10 s) until Orca has said nothing for 1.5 s: long enough for a second,
    /// coalesced utterance (one window, SpeechTiming.window, later) to have followed.
    func settle() {
        var count = orca.speech.count, since = Date()
        if count == quietAt { return }
        defer { quietAt = orca.speech.count }
        waitUntil(timeout: 10, interval: 0.05) {
            let now = orca.speech.count
            if now != count { count = now; since = Date() }
            return Date().timeIntervalSince(since) >= 1.5
        }
    }

    /// Waits for the first utterance, lets Orca finish, and compares everything said since the mark.
    func heard(_ expected: [String]) -> Bool {
        waitUntil(timeout: 10) { !current.isEmpty }
        settle()
        return current == expected
    }

    /// The capture lines (speech and locus changes) of each scenario, times relative to its start.
    var report: String {
        let lines = orca.transcript.split(separator: "\n").map(String.init)
        var text = ""
        for (index, scenario) in scenarios.enumerated() {
            let end = index + 1 < scenarios.count ? scenarios[index + 1].start : lines.count
            text += "(\(scenario.name))\n"
            let body = lines[scenario.start..<max(scenario.start, end)]
            let origin = body.first.flatMap { Double($0.split(separator: "\t").first ?? "") } ?? 0
            for line in body {
                let columns = line.split(separator: "\t", maxSplits: 2).map(String.init)
                guard columns.count == 3, let time = Double(columns[0]) else { continue }
                text += String(format: "  +%.3f %@ %@\n", time - origin, columns[1], columns[2])
            }
            if body.isEmpty { text += "  (nothing)\n" }
        }
        return text
    }
}

/// A real GTK 3 window (Scripts/gtkwin.py) in its own process, holding X input focus.
final class FocusWindow {
    let child: ChildProcess

    init(environment: [String: String], workDirectory: String) throws {
        // Copied next to the test's files, so a chroot (make test-orca48) sees it under /tmp too.
        let script = workDirectory + "/gtkwin.py"
        try? FileManager.default.removeItem(atPath: script)
        try FileManager.default.copyItem(atPath: scriptsDirectory + "/gtkwin.py", toPath: script)
        var environment = pythonEnvironment(environment)
        environment["NO_AT_BRIDGE"] = nil  // the private session turns GTK's bridge off; this window needs it
        child = try DesktopRoot.start(systemPython, [script], environment: environment, stdin: .pipe)
        guard
            waitUntil(
                timeout: 20, interval: 0.02,
                { self.child.stdout.contains("\"ready\"") || !self.child.isRunning }),
            child.isRunning
        else {
            throw TestFailure(
                "gtkwin.py did not become the active window: \(child.stdout) \(child.stderr)")
        }
    }

    deinit { stop() }

    func stop() {
        child.closeStdin()
        child.terminate()
    }

    /// Moves GTK's focus to "entry" or "button" (an object:state-changed:focused event).
    func focus(_ widget: String) {
        child.writeToStdin("focus \(widget)\n")
    }
}

/// "Orca version 43.1" as the Orca under test reports it.
func orcaVersion() -> String {
    let (executable, arguments) = DesktopRoot.command("/usr/bin/orca", ["--version"])
    let result = try? run(
        executable, arguments, environment: ProcessInfo.processInfo.environment, timeout: 20)
    return result?.stdout.split(separator: "\n").first.map(String.init) ?? "Orca, version unknown"
}
