import Foundation
import Testing
import DBusKit
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

private let right = "\u{1B}[C", left = "\u{1B}[D", up = "\u{1B}[A", home = "\u{1B}[H", end = "\u{1B}[F",
    escape = "\u{1B}"

extension DaemonTests {
    @Suite("adjust and show in a pseudo-terminal")
    struct InTerminal {
        func adjust(_ fixture: DaemonFixture) throws -> TerminalProcess {
            var environment = fixture.environment
            environment["TERM"] = "xterm"
            let terminal = try TerminalProcess(
                productPath("snapsizectl")!, ["adjust"], environment: environment)
            try #require(
                terminal.waitForOutput(containing: "Enter commits, Esc cancels, q quits."),
                "\(terminal.output)")
            return terminal
        }

        /// Sends keys and waits until `line` is the newest line of output.
        func press(
            _ terminal: TerminalProcess, _ keys: String, expect line: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let before = terminal.output.components(separatedBy: line + "\n").count
            terminal.send(keys)
            let arrived =
                terminal.waitForOutput(containing: line)
                && waitUntil(timeout: 10) {
                    terminal.output.components(separatedBy: line + "\n").count > before
                }
            #expect(
                arrived, "no '\(line)' after \(keys.debugDescription): \(terminal.output)",
                sourceLocation: sourceLocation)
        }

        func isRestored(_ terminal: TerminalProcess) -> Bool {
            let attributes = terminal.terminalAttributes()
            let local = tcflag_t(ICANON | ECHO | ISIG)
            return attributes.c_lflag & local == local && attributes.c_iflag & tcflag_t(ICRNL) != 0
        }

        @Test("arrows preview, Enter commits, Esc cancels, Home/End, q quits; the terminal is restored")
        func keys() throws {
            let fixture = try DaemonFixture()
            let terminal = try adjust(fixture)
            #expect(terminal.output.hasPrefix("Circle size: 60 points. "))
            #expect(!isRestored(terminal), "adjust switches the terminal to raw input")

            press(terminal, right, expect: "Preview: 80 points")
            let shown = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(shown["previewing"] as? Bool == true)
            #expect(shown["shownSize"] as? Int == 80)
            #expect(shown["selectedSize"] as? Int == 60)
            press(terminal, up, expect: "Preview: 100 points")
            press(terminal, right, expect: "already at the largest size, 100 points")
            press(terminal, "\r", expect: "Committed: 100 points")
            #expect(try fixture.ctl(["get"]).out == "100\n")

            press(terminal, left, expect: "Preview: 80 points")
            press(terminal, escape, expect: "Cancelled: 100 points")
            #expect(
                try parseJSONObject(try fixture.ctl(["status", "--json"]).out)["previewing"] as? Bool
                    == false)
            press(terminal, home, expect: "Preview: 20 points")
            press(terminal, end, expect: "Preview: 100 points")
            press(terminal, left + left, expect: "Preview: 60 points")
            press(terminal, "\r", expect: "Committed: 60 points")
            press(terminal, "\u{1B}[D", expect: "Preview: 40 points")
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            #expect(isRestored(terminal), "the terminal is back in its original mode")

            let lines = terminal.output.split(separator: "\n").dropFirst().map(String.init)
            #expect(
                lines == [
                    "Preview: 80 points", "Preview: 100 points",
                    "already at the largest size, 100 points",
                    "Committed: 100 points", "Preview: 80 points", "Cancelled: 100 points",
                    "Preview: 20 points",
                    "Preview: 100 points", "Preview: 80 points", "Preview: 60 points",
                    "Committed: 60 points",
                    "Preview: 40 points", "Cancelled: 60 points"
                ])
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(status["previewing"] as? Bool == false)
            #expect(status["selectedSize"] as? Int == 60)
        }

        @Test(
            "Ctrl-C cancels the preview, restores the terminal, exit 130", arguments: ["key", "signal"])
        func interrupt(how: String) throws {
            let fixture = try DaemonFixture()
            let terminal = try adjust(fixture)
            press(terminal, right, expect: "Preview: 80 points")
            if how == "key" { terminal.send("\u{03}") } else { terminal.signal(SIGINT) }
            #expect(terminal.waitForExit() == 130)
            #expect(
                terminal.output.hasSuffix("Preview: 80 points\nCancelled: 60 points\n"),
                "\(terminal.output)")
            #expect(isRestored(terminal))
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(status["previewing"] as? Bool == false)
            #expect(status["selectedSize"] as? Int == 60)
        }

        @Test(
            "a preview held by snapsizectl adjust: refusals, status and watch --json name that program and pid"
        )
        func holderNamed() throws {
            let fixture = try DaemonFixture()
            let watch = try ChildProcess(
                productPath("snapsizectl")!, ["watch", "--json", "--count", "3"],
                environment: fixture.environment)
            #expect(waitUntil(timeout: 10) { watch.stderr.contains("Watching") }, "\(watch.stderr)")
            let terminal = try adjust(fixture)
            press(terminal, right, expect: "Preview: 80 points")
            let holder = "snapsizectl adjust (pid \(terminal.pid))"

            let refused = try fixture.ctl(["inc"])
            #expect(refused.status == 1)
            #expect(refused.err.contains("A preview is open (held by \(holder));"), "\(refused.err)")
            print("refusal: " + refused.err, terminator: "")
            let status = try fixture.ctl(["status"])
            #expect(status.out.contains("previewing: yes, held by \(holder)\n"), "\(status.out)")
            let json = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            let changedBy = try #require(json["changedBy"] as? [String: Any], "\(json)")
            #expect(changedBy["pid"] as? Int == Int(terminal.pid))
            #expect(changedBy["command"] as? String == "snapsizectl adjust")
            #expect((changedBy["name"] as? String)?.hasPrefix(":") == true)

            press(terminal, "\r", expect: "Committed: 80 points")
            // A change by another program: set (its own pid), then watch has seen three changes.
            #expect(try fixture.ctl(["set", "20"]).out == "20\n")
            #expect(waitUntil(timeout: 10) { !watch.isRunning }, "\(watch.stdout) \(watch.stderr)")
            #expect(watch.wait() == 0, "\(watch.stderr)")
            let lines = watch.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(watch.stdout)")
            let by = try lines.map { line in try parseJSONObject(line)["by"] as? [String: Any] }
            // Even a client's first change is named with its process: the line waits for the daemon to learn it.
            #expect(
                by[0]?["name"] as? String == changedBy["name"] as? String
                    && by[0]?["command"] as? String == "snapsizectl adjust",
                "preview by adjust: \(watch.stdout)")
            #expect(
                by[1]?["command"] as? String == "snapsizectl adjust"
                    && by[1]?["pid"] as? Int == Int(terminal.pid),
                "commit by adjust: \(watch.stdout)")
            #expect(
                by.last??["name"] as? String != changedBy["name"] as? String,
                "set by another client: \(watch.stdout)")
            terminal.send("q")
            _ = terminal.waitForExit()
        }

        @Test("another client's preview: the refusal is reported and adjust goes on")
        func refusal() throws {
            let fixture = try DaemonFixture()
            let terminal = try adjust(fixture)
            let other = try fixture.client()
            try other.call("Preview", [.double(tick[0])])
            terminal.send(right)
            #expect(
                terminal.waitForOutput(
                    containing: "snapsizectl: org.snapsize.SizeSelector1.Error.PreviewActive: "
                        + "A preview is open (held by "), "\(terminal.output)")
            #expect(terminal.output.contains("(pid \(getpid())))"), "\(terminal.output)")
            #expect(!terminal.output.contains("Preview: "))
            try other.call("Cancel")
            press(terminal, right, expect: "Preview: 80 points")
            terminal.send("q")
            #expect(terminal.waitForExit() == 0)
            #expect(terminal.output.hasSuffix("Cancelled: 60 points\n"))
        }

        @Test(
            "show on a terminal: Unicode and colour, the committed size marked while a preview differs")
        func showOnTerminal() throws {
            let fixture = try DaemonFixture()
            let other = try fixture.client()
            try other.call("Preview", [.double(tick[3])])
            var environment = fixture.environment
            environment["TERM"] = "xterm"
            let colour = try TerminalProcess(
                productPath("snapsizectl")!, ["show"], environment: environment)
            #expect(colour.waitForExit() == 0)
            #expect(
                colour.output == "20 ─ 40 ─ \u{1B}[4m(60)\u{1B}[0m ─ \u{1B}[1;7m[80]\u{1B}[0m ─ 100\n"
                    + "preview 80 points, committed 60 points\n")
            environment["NO_COLOR"] = "1"
            let plain = try TerminalProcess(
                productPath("snapsizectl")!, ["show"], environment: environment)
            #expect(plain.waitForExit() == 0)
            #expect(
                plain.output == "20 ─ 40 ─ (60) ─ [80] ─ 100\npreview 80 points, committed 60 points\n")
        }
    }
}
