import Foundation
import Testing
@_spi(Testing) import DBusKit
import SizeSelectorContract
import SnapCLI
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

private let right = "\u{1B}[C", left = "\u{1B}[D", end = "\u{1B}[F"

extension DaemonTests {
    /// The clients follow a reload (SIGHUP) of the real daemon: what they hold, what they show and
    /// the positions they send are the daemon's new list, track and words.
    @Suite("clients follow a reload")
    struct FollowReload {
        let terminal = InTerminal()

        @Test(
            "adjust in a terminal: a reload cancels its preview as any cancel shows, the new list is shown, arrows preview the new list"
        )
        func adjustFollows() throws {
            let fixture = try DaemonFixture()
            let adjust = try terminal.adjust(fixture)
            terminal.press(adjust, right, expect: "Preview: 80 points")
            // A longer list on a narrower track: the old track's positions would map elsewhere.
            #expect(
                try fixture.reload(config: "sizes = 30,45,60,75,90,105,120\ntrack-width = 200\n"),
                "\(fixture.daemon?.stderr ?? "")")
            #expect(
                adjust.waitForOutput(containing: "New sizes: 30 45 60 75 90 105 120; committed: 60\n"),
                "\(adjust.output)")
            terminal.press(adjust, right, expect: "Preview: 75 points")
            terminal.press(adjust, "\r", expect: "Committed: 75 points")
            #expect(try fixture.ctl(["get"]).out == "75\n")
            terminal.press(adjust, end, expect: "Preview: 120 points")
            terminal.press(adjust, right, expect: "already at the largest size, 120 points")
            terminal.press(adjust, "\u{1B}", expect: "Cancelled: 75 points")
            // No preview open: the committed size moves to the nearest of the new list, in new words.
            #expect(
                try fixture.reload(config: "sizes = 10,50,90\nunit = px\n"),
                "\(fixture.daemon?.stderr ?? "")")
            #expect(
                adjust.waitForOutput(containing: "New sizes: 10 50 90; committed: 90\n"),
                "\(adjust.output)")
            terminal.press(adjust, left, expect: "Preview: 50 px")
            adjust.send("q")
            #expect(adjust.waitForExit() == 0)
            let lines = adjust.output.split(separator: "\n").dropFirst().map(String.init)
            #expect(
                lines == [
                    "Preview: 80 points", "Cancelled: 60 points",
                    "New sizes: 30 45 60 75 90 105 120; committed: 60",
                    "Preview: 75 points", "Committed: 75 points", "Preview: 120 points",
                    "already at the largest size, 120 points",
                    "Cancelled: 75 points", "New sizes: 10 50 90; committed: 90", "Preview: 50 px",
                    "Cancelled: 90 px"
                ])
            #expect(try fixture.ctl(["get"]).out == "90\n")
        }

        @Test("in Portuguese: the reload's cancel and the new list in the session's words")
        func adjustFollowsInPortuguese() throws {
            try #require(
                localeInstalled("pt_BR.UTF-8"),
                "pt_BR.UTF-8 is not installed: `make test` makes it (make locales)")
            _ = try compileCatalogs()
            let fixture = try DaemonFixture(startDaemon: false)
            fixture.environment = withLanguage(fixture.environment, LANG: "pt_BR.UTF-8")
            fixture.environment["TERM"] = "xterm"
            try fixture.start()
            let adjust = try TerminalProcess(
                productPath("snapsizectl")!, ["adjust"], environment: fixture.environment)
            try #require(adjust.waitForOutput(containing: "q sai"), "\(adjust.output)")
            terminal.press(adjust, right, expect: "Pré-visualização: 80 pontos")
            #expect(try fixture.reload(config: "sizes = 10,50,90\n"), "\(fixture.daemon?.stderr ?? "")")
            #expect(
                adjust.waitForOutput(containing: "Novos tamanhos: 10 50 90; confirmado: 50\n"),
                "\(adjust.output)")
            terminal.press(adjust, right, expect: "Pré-visualização: 90 pontos")
            adjust.send("q")
            #expect(adjust.waitForExit() == 0)
            #expect(
                adjust.output.split(separator: "\n").dropFirst().map(String.init) == [
                    "Pré-visualização: 80 pontos", "Cancelado: 60 pontos",
                    "Novos tamanhos: 10 50 90; confirmado: 50",
                    "Pré-visualização: 90 pontos", "Cancelado: 50 pontos"
                ])
        }

        @Test(
            "the preview timeout ends adjust's preview: shown as any cancel, the next key starts from the committed size"
        )
        func previewTimeout() throws {
            let fixture = try DaemonFixture(["--preview-timeout", "1"])
            let adjust = try terminal.adjust(fixture)
            terminal.press(adjust, right, expect: "Preview: 80 points")
            #expect(adjust.waitForOutput(containing: "Cancelled: 60 points\n"), "\(adjust.output)")
            terminal.press(adjust, left, expect: "Preview: 40 points")
            terminal.press(adjust, "\r", expect: "Committed: 40 points")
            adjust.send("q")
            #expect(adjust.waitForExit() == 0)
            #expect(
                adjust.output.split(separator: "\n").dropFirst().map(String.init) == [
                    "Preview: 80 points", "Cancelled: 60 points", "Preview: 40 points",
                    "Committed: 40 points"
                ])
        }

        @Test("the session bus goes away: adjust says so at once and exits 69, the terminal restored")
        func busGone() throws {
            let fixture = try DaemonFixture()
            let adjust = try terminal.adjust(fixture)
            terminal.press(adjust, right, expect: "Preview: 80 points")
            fixture.stop()
            fixture.bus.stop()
            #expect(adjust.waitForExit() == 69, "\(adjust.output)")
            #expect(
                adjust.output.hasSuffix("snapsizectl: the session bus went away\n"), "\(adjust.output)")
            #expect(terminal.isRestored(adjust))
        }

        /// A longer list on a wider track: the old track's last position (324) is the new list's 105.
        static let wider = "sizes = 30,45,60,75,90,105,120\ntrack-width = 400\n"

        @Test("a key read together with a reload's unread announcements is taken from the new list")
        func keyBehindUnreadReload() throws {
            let fixture = try DaemonFixture()
            let adjust = try terminal.adjust(fixture)
            terminal.press(adjust, right, expect: "Preview: 80 points")
            let watcher = try fixture.client()
            watcher.listen()
            // adjust is stopped while the bus hands it the reload's announcements and then a key:
            // it wakes with both waiting, the key read before the announcements are dispatched.
            defer { adjust.signal(SIGCONT) }
            try #require(stopWhileIdle(adjust.pid), "adjust could not be stopped in its poll")
            #expect(try fixture.reload(config: Self.wider), "\(fixture.daemon?.stderr ?? "")")
            #expect(watcher.pump { watcher.propertiesChanged.count >= 2 }, "the cancel, the new list")
            watcher.settle(0.2)
            adjust.send(right)
            adjust.signal(SIGCONT)
            #expect(adjust.waitForOutput(containing: "Preview: 75 points\n"), "\(adjust.output)")
            adjust.send("q")
            #expect(adjust.waitForExit() == 0)
            #expect(
                adjust.output.split(separator: "\n").dropFirst().map(String.init) == [
                    "Preview: 80 points", "Cancelled: 60 points",
                    "New sizes: 30 45 60 75 90 105 120; committed: 60",
                    "Preview: 75 points", "Cancelled: 60 points"
                ])
        }

        @Test(
            "a reload between a key and the daemon's answer: the cancel and the new list are shown before the new preview"
        )
        func reloadBeforeAnswer() throws {
            let fixture = try DaemonFixture()
            guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
            let monitor = try ChildProcess(
                "dbus-monitor",
                ["--address", fixture.bus.address, "type='method_call',member='Preview'"],
                environment: fixture.environment)
            defer { monitor.terminate() }
            // dbus-monitor is watching once the bus has told it its name (whatever its match rule).
            #expect(
                waitUntil(timeout: 10) {
                    monitor.stdout.contains("NameAcquired") || monitor.stdout.contains("NameLost")
                },
                "\(monitor.stdout) \(monitor.stderr)")
            let adjust = try terminal.adjust(fixture)
            terminal.press(adjust, right, expect: "Preview: 80 points")
            #expect(
                waitUntil(timeout: 10) {
                    monitor.stdout.components(separatedBy: "member=Preview").count == 2
                }, "\(monitor.stdout)")
            // The daemon is stopped while adjust sends its next Preview (from the old track's position):
            // on waking it takes the SIGHUP first, then the call.
            defer { kill(daemon.pid, SIGCONT) }
            try #require(stopWhileIdle(daemon.pid), "snapsized could not be stopped in its poll")
            adjust.send(right)
            #expect(
                waitUntil(timeout: 10) {
                    monitor.stdout.components(separatedBy: "member=Preview").count == 3
                }, "\(monitor.stdout)")
            try fixture.writeConfig(Self.wider)
            kill(daemon.pid, SIGHUP)
            kill(daemon.pid, SIGCONT)
            #expect(adjust.waitForOutput(containing: "Preview: 105 points\n"), "\(adjust.output)")
            #expect(daemon.stderr.contains("reload (SIGHUP)"), "\(daemon.stderr)")
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(
                status["previewing"] as? Bool == true && status["shownSize"] as? Int == 105, "\(status)")
            adjust.send("q")
            #expect(adjust.waitForExit() == 0)
            #expect(
                adjust.output.split(separator: "\n").dropFirst().map(String.init) == [
                    "Preview: 80 points", "Cancelled: 60 points",
                    "New sizes: 30 45 60 75 90 105 120; committed: 60",
                    "Preview: 105 points", "Cancelled: 60 points"
                ])
            #expect(
                try parseJSONObject(try fixture.ctl(["status", "--json"]).out)["previewing"] as? Bool
                    == false)
        }

        @Test(
            "snapsizectl's client state, followed through PropertiesChanged, equals GetAll after each reload"
        )
        func stateFollows() throws {
            let fixture = try DaemonFixture()
            let client = try DBusSizeSelectorClient(
                environment: fixture.environment, timeoutMilliseconds: 10_000)
            let loop = EventLoop()
            var followed: SelectorState?
            client.attach(to: loop, onChange: { followed?.apply($0) }, onLost: {})
            followed = try client.state()
            let owner = try fixture.client()
            try owner.call("Preview", [.double(tick[3])])
            for config in [
                "sizes = 10,30,50,70\ntrack-width = 200\ntrack-inset = 4\n",
                "sizes = 10,30,50,70\ntrack-width = 200\ntrack-inset = 4\nlayout = numeric\nlabel = Brush\nunit = px\n",
                "sizes = 15,25\n"
            ] {
                #expect(try fixture.reload(config: config), "\(fixture.daemon?.stderr ?? "")")
                let now = try client.state()
                let caughtUp = waitUntil(timeout: 10) {
                    loop.run(seconds: 0.02)
                    return followed == now
                }
                #expect(caughtUp, "followed \(String(describing: followed)), GetAll \(now)")
            }
            #expect(
                followed?.sizes == [15, 25] && followed?.layout == "ordinal"
                    && followed?.label == "Circle size")
            #expect(followed?.trackWidth == 336 && followed?.valueTexts == ["15 points", "25 points"])
        }
    }
}
