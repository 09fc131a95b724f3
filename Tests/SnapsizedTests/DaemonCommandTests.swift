import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// Every test here runs the built snapsizectl against a snapsized on a private bus. Serialized:
/// each starts two daemons, and the machine has two cores.
@Suite("snapsizectl against snapsized", .serialized)
struct DaemonTests {}

extension DaemonTests {
    @Suite("get, status, set, inc, dec, focus")
    struct Basics {
        @Test("get and status: plain and JSON, field by field")
        func getAndStatus() throws {
            let fixture = try DaemonFixture()
            let get = try fixture.ctl(["get"])
            #expect(get.status == 0)
            #expect(get.out == "60\n")
            #expect(get.err == "")

            let getJSON = try parseJSONObject(try fixture.ctl(["get", "--json"]).out)
            #expect(getJSON["index"] as? Int == 2)
            #expect(getJSON["size"] as? Int == 60)
            #expect(getJSON["valueText"] as? String == "60 points")

            let status = try fixture.ctl(["status"])
            #expect(status.status == 0)
            #expect(status.err == "")
            #expect(
                status.out == """
                    label:      Circle size
                    sizes:      20 40 60 80 100
                    committed:  60 (index 2)
                    shown:      60 (index 2)
                    previewing: no
                    value text: 60 points
                    layout:     ordinal
                    track:      width 336, inset 12
                    state file: \(fixture.stateFile)
                    saving:     saved

                    """)

            let json = try fixture.ctl(["status", "--json", "--timeout", "5"])
            #expect(json.status == 0)
            let object = try parseJSONObject(json.out)
            #expect(object["sizes"] as? [Int] == [20, 40, 60, 80, 100])
            #expect(object["selectedIndex"] as? Int == 2)
            #expect(object["selectedSize"] as? Int == 60)
            #expect(object["shownIndex"] as? Int == 2)
            #expect(object["shownSize"] as? Int == 60)
            #expect(object["previewing"] as? Bool == false)
            #expect(object["valueText"] as? String == "60 points")
            #expect(object["label"] as? String == "Circle size")
            #expect(object["trackWidth"] as? Double == 336)
            #expect(object["trackInset"] as? Double == 12)
            #expect(object["layout"] as? String == "ordinal")
        }

        @Test("set SIZE, set --index N, and an index out of range")
        func set() throws {
            let fixture = try DaemonFixture()
            let nearest = try fixture.ctl(["set", "55"])
            #expect(nearest.status == 0 && nearest.out == "60\n" && nearest.err == "")
            let byIndex = try fixture.ctl(["set", "--index", "4"])
            #expect(byIndex.status == 0 && byIndex.out == "100\n" && byIndex.err == "")
            #expect(try fixture.ctl(["get"]).out == "100\n")

            let json = try parseJSONObject(try fixture.ctl(["set", "21", "--json"]).out)
            #expect(json["index"] as? Int == 0)
            #expect(json["size"] as? Int == 20)

            let outOfRange = try fixture.ctl(["set", "--index", "9"])
            #expect(outOfRange.status == 1)
            #expect(outOfRange.out == "")
            #expect(outOfRange.err.contains(ErrorName.outOfRange.rawValue), "\(outOfRange.err)")
            #expect(try fixture.ctl(["get"]).out == "20\n")
        }

        @Test("set +N and set -N are relative and snap like SetSize; an unsigned value stays absolute")
        func setRelative() throws {
            let fixture = try DaemonFixture()
            let up = try fixture.ctl(["set", "+20"])
            #expect(up.status == 0 && up.out == "80\n" && up.err == "", "\(up)")
            let back = try fixture.ctl(["set", "-5"])
            #expect(back.status == 0 && back.out == "80\n", "75 snaps to 80: \(back)")
            let down = try fixture.ctl(["set", "-30"])
            #expect(
                down.status == 0 && down.out == "60\n",
                "50 is a tie between 40 and 60: the larger: \(down)")
            #expect(try fixture.ctl(["set", "+1000"]).out == "100\n", "clamped at the largest")
            #expect(
                try fixture.ctl(["set", "--", "-1000"]).out == "20\n",
                "clamped at the smallest, after --")
            #expect(try fixture.ctl(["set", "20"]).out == "20\n")
            #expect(try fixture.ctl(["set", "40"]).out == "40\n", "unsigned stays absolute")
        }

        @Test("inc and dec, with N, and the line on stderr at a limit (exit 0)")
        func steps() throws {
            let fixture = try DaemonFixture()
            let inc = try fixture.ctl(["inc"])
            #expect(inc.status == 0 && inc.out == "80\n" && inc.err == "")
            let top = try fixture.ctl(["inc", "5"])
            #expect(top.status == 0)
            #expect(top.out == "100\n")
            #expect(
                top.err == "stopped at the largest size, 100 points\n",
                "it moved from 80 before stopping")
            let again = try fixture.ctl(["inc", "--json"])
            #expect(again.status == 0)
            let object = try parseJSONObject(again.out)
            #expect(object["index"] as? Int == 4)
            #expect(object["size"] as? Int == 100)
            #expect(object["atLimit"] as? Bool == true)
            #expect(again.err == "already at the largest size, 100 points\n")

            let dec = try fixture.ctl(["dec", "2", "--json"])
            #expect(dec.status == 0 && dec.err == "")
            let decObject = try parseJSONObject(dec.out)
            #expect(decObject["size"] as? Int == 60)
            #expect(decObject["atLimit"] as? Bool == false)
            let bottom = try fixture.ctl(["dec", "9"])
            #expect(bottom.status == 0 && bottom.out == "20\n")
            #expect(bottom.err == "stopped at the smallest size, 20 points\n")
            let still = try fixture.ctl(["dec", "3"])
            #expect(still.status == 0 && still.out == "20\n")
            #expect(
                still.err == "already at the smallest size, 20 points\n",
                "several steps that cannot move at all")
        }

        @Test("focus without an accessibility bus: the daemon's refusal, exit 1")
        func focus() throws {
            let fixture = try DaemonFixture()
            let result = try fixture.ctl(["focus"])
            #expect(result.status == 1)
            #expect(result.out == "")
            #expect(result.err.contains(ErrorName.noAccessibility.rawValue), "\(result.err)")
        }
    }

    @Suite("refusals and a missing daemon")
    struct Failures {
        @Test(
            "a step or set while another client holds a preview: exit 1 with the error name; show marks both"
        )
        func refusedDuringPreview() throws {
            let fixture = try DaemonFixture()
            let other = try fixture.client()
            try other.call("Preview", [.double(tick[4])])

            for arguments in [
                ["inc"], ["dec"], ["set", "40"], ["set", "--index", "1"],
                ["drag", "12", "--release", "12"]
            ] {
                let result = try fixture.ctl(arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.out == "", "\(arguments)")
                #expect(
                    result.err.hasPrefix(
                        "snapsizectl: org.snapsize.SizeSelector1.Error.PreviewActive: "),
                    "\(arguments): \(result.err)")
                #expect(
                    result.err.contains("(pid \(getpid())))"),
                    "the message names the client's process: \(result.err)")
            }

            let show = try fixture.ctl(["show"])
            #expect(show.status == 0 && show.err == "")
            #expect(show.out == "20 - 40 - (60) - 80 - [100]\npreview 100 points, committed 60 points\n")
            let json = try parseJSONObject(try fixture.ctl(["show", "--json"]).out)
            #expect(json["shownIndex"] as? Int == 4)
            #expect(json["shownSize"] as? Int == 100)
            #expect(json["selectedIndex"] as? Int == 2)
            #expect(json["selectedSize"] as? Int == 60)
            #expect(json["previewing"] as? Bool == true)
            #expect(json["text"] as? String == "20 - 40 - (60) - 80 - [100]")
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(status["previewing"] as? Bool == true)
            #expect(status["valueText"] as? String == "100 points")
            #expect(try fixture.ctl(["get"]).out == "60\n")

            try other.call("Cancel")
            #expect(try fixture.ctl(["show"]).out == "20 - 40 - [60] - 80 - 100\n")
            #expect(try fixture.ctl(["inc"]).status == 0)
        }

        static let daemonCommands: [[String]] = [
            ["get"], ["status"], ["set", "40"], ["set", "--index", "1"], ["inc"], ["dec"],
            ["drag", "1", "--release", "1"],
            ["adjust"], ["watch"], ["show"], ["focus"]
        ]

        @Test(
            "no daemon and nothing to activate: exit 69 and the reason, for every command that calls it")
        func noDaemon() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            for arguments in Self.daemonCommands {
                let result = try fixture.ctl(arguments)
                #expect(result.status == 69, "\(arguments): \(result.err)")
                #expect(result.out == "", "\(arguments)")
                #expect(
                    result.err.contains("snapsized is not running and cannot be activated"),
                    "\(arguments): \(result.err)")
                #expect(
                    result.err.contains("org.freedesktop.DBus.Error.ServiceUnknown"),
                    "\(arguments): \(result.err)")
            }
        }

        @Test("no session bus at all: exit 69")
        func noSessionBus() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            for arguments in Self.daemonCommands {
                let result = try fixture.ctl(arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": nil])
                #expect(result.status == 69, "\(arguments): \(result.err)")
                #expect(
                    result.err.contains("DBUS_SESSION_BUS_ADDRESS is not set"),
                    "\(arguments): \(result.err)")
            }
        }

        @Test("D-Bus activation starts the daemon for the first call")
        func activation() throws {
            let fixture = try DaemonFixture(startDaemon: false, activatable: true)
            let result = try fixture.ctl(["inc"])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == "80\n")
        }

        @Test("a daemon that does not answer in --timeout: exit 69 within about that time")
        func timeout() throws {
            let fixture = try DaemonFixture()
            let daemon = try #require(fixture.daemon)
            kill(daemon.pid, SIGSTOP)
            defer { kill(daemon.pid, SIGCONT) }
            let started = Date()
            let result = try fixture.ctl(["get", "--timeout", "0.5"])
            #expect(result.status == 69, "\(result.err)")
            #expect(result.err.contains("did not answer within 0.5 s"), "\(result.err)")
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    @Suite("usage and help")
    struct Usage {
        @Test("every command has --help generated from its arguments; the tool lists them all")
        func help() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            let tool = try fixture.ctl(["--help"])
            #expect(tool.status == 0)
            for name in [
                "get", "status", "set", "inc", "dec", "drag", "adjust", "watch", "show", "focus",
                "doctor", "snap"
            ] {
                #expect(tool.out.contains("\n  \(name) "), "tool help lacks \(name)")
                let help = try fixture.ctl([name, "--help"])
                #expect(help.status == 0, "\(name)")
                #expect(help.out.hasPrefix("USAGE: snapsizectl \(name)"), "\(name): \(help.out)")
                #expect(help.err == "")
                if name != "snap" { #expect(help.out.contains("--timeout <seconds>"), "\(name)") }
            }
            let version = try fixture.ctl(["--version"])
            #expect(version.status == 0 && version.out == "snapsizectl 0.1.0\n")
        }

        @Test(
            "usage errors: exit 64, message and usage line on stderr, nothing run",
            arguments: [
                (["set"], "missing <size> (or --index <n>)"),
                (["set", "40", "--index", "1"], "give either <size> or --index <n>, not both"),
                (["set", "forty"], "'forty' is not a whole number of points"),
                (["set", "--index", "-1"], "--index: '-1' is not an index"),
                (["inc", "0"], "'0' is not a number of steps"),
                (["dec", "x"], "'x' is not a number of steps"),
                (["inc", "1", "2"], "unexpected argument '2'"),
                (["drag", "10"], "end the gesture with --release <x> or --cancel"),
                (["drag", "10", "--release", "5", "--cancel"], "not both"),
                (["drag", "--release", "5"], "missing <x>"),
                (["drag", "nan", "--release", "5"], "'nan' is not a finite number"),
                (["get", "--timeout", "0"], "--timeout: give a number of seconds above 0"),
                (["get", "--timeout", "soon"], "--timeout: 'soon' is not a finite number"),
                (["watch", "--count", "0"], "--count: '0' is not a number of changes"),
                (["focus", "--json"], "unknown option '--json'"),
                (["status", "--jsno"], "unknown option '--jsno'; did you mean '--json'?"),
                (["watch", "--cuont", "2"], "did you mean '--count'?")
            ])
        func usage(arguments: [String], message: String) throws {
            let fixture = try DaemonFixture()
            let result = try fixture.ctl(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.out == "")
            #expect(result.err.contains(message), "\(arguments): \(result.err)")
            #expect(result.err.contains("USAGE: snapsizectl \(arguments[0])"))
            #expect(try fixture.ctl(["get"]).out == "60\n", "nothing changed")
        }
    }
}
