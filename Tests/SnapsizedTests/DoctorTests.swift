import Foundation
import Testing
import DBusKit
import TestSupport

extension DaemonTests {
    @Suite("doctor")
    struct Doctor {
        func statuses(_ json: String) throws -> (failed: String?, steps: [String: String]) {
            let object = try parseJSONObject(json)
            let checks = try #require(object["checks"] as? [[String: Any]])
            var steps: [String: String] = [:]
            for check in checks { steps[check["step"] as? String ?? "?"] = check["status"] as? String }
            #expect(
                checks.map { $0["step"] as? String ?? "" }
                    == [
                        "session bus", "snapsized", "accessibility bus", "registry", "application",
                        "slider", "config", "saving"
                    ])
            #expect(object["ok"] as? Bool == (object["failed"] is NSNull))
            return (object["failed"] as? String, steps)
        }

        @Test("no session bus: the first step fails")
        func noSessionBus() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            let result = try fixture.ctl(
                ["doctor", "--json"], environment: ["DBUS_SESSION_BUS_ADDRESS": nil])
            #expect(result.status == 69)
            let (failed, steps) = try statuses(result.out)
            #expect(failed == "session bus")
            #expect(steps["session bus"] == "fail" && steps["snapsized"] == "skip")
        }

        @Test("daemon absent and not activatable: the snapsized step fails, with what to do")
        func noDaemon() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            let result = try fixture.ctl(["doctor"])
            #expect(result.status == 69)
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(
                lines.first?.hasPrefix("[ok]   session bus reachable: unix:") == true, "\(result.out)")
            #expect(
                lines.count > 1
                    && lines[1].hasPrefix("[FAIL] snapsized owns org.snapsize.SizeSelector1"),
                "\(result.out)")
            #expect(
                lines.count > 1 && lines[1].contains("org.freedesktop.DBus.Error.ServiceUnknown"),
                "\(result.out)")
            // The tests run snapsizectl from the build tree: the advice is for a build tree.
            let folder = URL(fileURLWithPath: try #require(productPath("snapsizectl")))
                .resolvingSymlinksInPath()
                .deletingLastPathComponent().path
            #expect(
                lines.count > 2
                    && lines[2].hasPrefix(
                        "       to fix: start it from this build (\(folder)/snapsized &)"),
                "\(result.out)")
            #expect(lines.dropFirst(3).allSatisfy { $0.hasPrefix("[skip]") }, "\(result.out)")
            #expect(result.err == "snapsizectl: doctor: the 'snapsized' step failed\n")
            let (failed, _) = try statuses(try fixture.ctl(["doctor", "--json"]).out)
            #expect(failed == "snapsized")
        }

        @Test(
            "a config file the daemon could not use is a failed check: file, line, reason, what to do; exit 69, in text and JSON"
        )
        func configProblems() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            try fixture.writeConfig("# mine\nlable = Brush size\n")
            try fixture.start()
            let problem =
                "\(fixture.configFile):2: unknown key 'lable' (did you mean 'label'?); the file was not used: "
                + "the built-in settings and the options apply"
            let result = try fixture.ctl(["doctor"], environment: ["AT_SPI_BUS_ADDRESS": nil])
            #expect(result.status == 69, "\(result)")
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(lines.count > 2 && lines[1].hasPrefix("[ok]   snapsized owns"), "\(result.out)")
            let config = try #require(
                lines.firstIndex { $0.hasPrefix("[FAIL] config file: ") }, "\(result.out)")
            #expect(lines[config] == "[FAIL] config file: \(problem)", "\(result.out)")
            #expect(
                lines.count > config + 1
                    && lines[config + 1].hasPrefix(
                        "       to fix: correct or remove that line, then apply the file: "
                            + "systemctl --user reload snapsized"),
                "\(result.out)")
            #expect(
                result.out.contains("[ok]   where the committed size is saved: the size is saved in "),
                "\(result.out)")
            let json = try parseJSONObject(
                try fixture.ctl(["doctor", "--json"], environment: ["AT_SPI_BUS_ADDRESS": nil]).out)
            let checks = try #require(json["checks"] as? [[String: Any]])
            #expect(checks[1]["configProblems"] as? [String] == [problem], "\(checks[1])")
            #expect(checks[0]["configProblems"] == nil)
            let report = try #require(checks.first { $0["step"] as? String == "config" })
            #expect(
                report["status"] as? String == "fail" && report["detail"] as? String == problem,
                "\(report)")
            #expect(
                (report["fix"] as? String)?.contains("systemctl --user reload snapsized") == true,
                "\(report)")
            // The file corrected and reloaded: the check passes.
            try fixture.writeConfig("# mine\nlabel = Brush size\n")
            #expect(kill(fixture.daemon!.pid, SIGHUP) == 0)
            #expect(
                waitUntil(timeout: 10) {
                    (try? fixture.ctl(["doctor"], environment: ["AT_SPI_BUS_ADDRESS": nil]))?.out
                        .contains("[ok]   config file: ") == true
                })
        }

        @Test("daemon activatable: doctor starts it and passes that step")
        func activatable() throws {
            let fixture = try DaemonFixture(startDaemon: false, activatable: true)
            let result = try fixture.ctl(["doctor", "--json"])
            let (failed, steps) = try statuses(result.out)
            #expect(steps["snapsized"] == "ok")
            #expect(failed == "accessibility bus")
            #expect(result.out.contains("started by D-Bus activation"))
            #expect(try fixture.ctl(["get"]).out == "60\n")
        }

        @Test("daemon running, no accessibility bus: the accessibility-bus step fails")
        func noAccessibilityBus() throws {
            let fixture = try DaemonFixture()
            let result = try fixture.ctl(["doctor", "--json"], environment: ["AT_SPI_BUS_ADDRESS": nil])
            #expect(result.status == 69)
            let (failed, steps) = try statuses(result.out)
            #expect(failed == "accessibility bus")
            #expect(steps["session bus"] == "ok" && steps["snapsized"] == "ok")
            #expect(steps["registry"] == "skip" && steps["slider"] == "skip")
            let plain = try fixture.ctl(["doctor"], environment: ["AT_SPI_BUS_ADDRESS": nil])
            #expect(
                plain.out.contains(
                    "[FAIL] accessibility bus reachable: AT_SPI_BUS_ADDRESS is not set and org.a11y.Bus"),
                "\(plain.out)")
            #expect(plain.out.contains("to fix: install at-spi2-core"), "\(plain.out)")
        }

        @Test("accessibility bus without a registry: the registry step fails")
        func noRegistry() throws {
            let fixture = try DaemonFixture()
            let accessibility = try PrivateSessionBus(serviceDirectories: [fixture.serviceDirectory])
            let result = try fixture.ctl(
                ["doctor", "--json"], environment: ["AT_SPI_BUS_ADDRESS": accessibility.address])
            #expect(result.status == 69)
            let (failed, steps) = try statuses(result.out)
            #expect(steps["accessibility bus"] == "ok")
            #expect(failed == "registry")
            #expect(result.out.contains("org.a11y.atspi.Registry has no owner"), "\(result.out)")
        }
    }
}

extension DaemonTests.Doctor {
    @Test("the AT-SPI walk against a stand-in registry: all pass when role, name and value are right")
    func allPass() throws {
        let fixture = try DaemonFixture()
        let accessibility = try FakeAccessibility(.init(), serviceDirectory: fixture.serviceDirectory)
        let result = try fixture.ctl(
            ["doctor"], environment: ["AT_SPI_BUS_ADDRESS": accessibility.bus.address])
        #expect(result.status == 0, "\(result.out)\(result.err)")
        #expect(result.err == "")
        let lines = result.out.split(separator: "\n").filter { !$0.hasPrefix("       ") }
        #expect(lines.count == 8 && lines.allSatisfy { $0.hasPrefix("[ok]   ") }, "\(result.out)")
        #expect(
            result.out.contains(
                "\n[ok]   where the committed size is saved: the size is saved in \(fixture.stateFile)\n"
            ), "\(result.out)")
        #expect(
            result.out.contains(
                "[ok]   slider with role, name and value: 'Circle size', role slider, value 2 (60 points)"
            ),
            "\(result.out)")
        let json = try parseJSONObject(
            try fixture.ctl(
                ["doctor", "--json"], environment: ["AT_SPI_BUS_ADDRESS": accessibility.bus.address]
            ).out)
        #expect(json["ok"] as? Bool == true)
        #expect(json["failed"] is NSNull)
    }

    @Test(
        "the AT-SPI walk names what is wrong",
        arguments: [
            (
                FakeAccessibility.Slider(listed: false), "application",
                "'snapsize' is not among the registry's applications"
            ),
            (FakeAccessibility.Slider(applicationName: "gedit"), "application", "(only 'gedit')"),
            (FakeAccessibility.Slider(role: 27), "slider", "its child has role 27, not slider (51)"),
            (
                FakeAccessibility.Slider(name: "Volume"), "slider",
                "the slider is named 'Volume', not 'Circle size'"
            ),
            (
                FakeAccessibility.Slider(value: 4), "slider",
                "its value is 4.0, but snapsized shows index 2"
            )
        ])
    func wrongSlider(slider: FakeAccessibility.Slider, step: String, detail: String) throws {
        let fixture = try DaemonFixture()
        let accessibility = try FakeAccessibility(slider, serviceDirectory: fixture.serviceDirectory)
        let result = try fixture.ctl(
            ["doctor", "--json"], environment: ["AT_SPI_BUS_ADDRESS": accessibility.bus.address])
        #expect(result.status == 69)
        let (failed, steps) = try statuses(result.out)
        #expect(failed == step)
        #expect(steps["registry"] == "ok")
        #expect(result.out.contains(detail), "\(result.out)")
    }
}

extension DaemonTests.Doctor {
    @Test("the full stack: every step passes against the real accessible slider")
    func fullStack() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let stack = try AccessibilityStack(sessionEnvironment: fixture.environment)
        defer { stack.stop() }
        let daemon = try ChildProcess(
            try #require(productPath("snapsized")), ["--no-state"], environment: stack.environment)
        defer { daemon.terminate(timeout: 2) }
        let a11y: [String: String?] = ["AT_SPI_BUS_ADDRESS": stack.address]
        var result: DaemonFixture.Result?
        // The slider appears once the daemon has joined the accessibility bus and embedded itself.
        waitUntil(timeout: 10, interval: 0.1) {
            result = try? fixture.ctl(["doctor", "--json"], environment: a11y)
            return result?.status == 0 || !daemon.isRunning
        }
        let json = try #require(result)
        #expect(json.status == 0, "doctor: \(json.out) \(json.err); daemon: \(daemon.stderr)")
        let (failed, steps) = try statuses(json.out)
        #expect(failed == nil)
        #expect(Set(steps.values) == ["ok"], "\(steps)")
        let plain = try fixture.ctl(["doctor"], environment: a11y)
        #expect(
            plain.out.contains(
                "[ok]   slider with role, name and value: 'Circle size', role slider, value 2 (60 points)"
            ),
            "\(plain.out)")
    }
}
