import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// snapsizectl undo, redo, history and watch's undo/redo lines, against a snapsized on a private bus.
@Suite("snapsizectl undo, redo, history", .serialized)
struct HistoryCommandTests {
    @Test(
        "undo and redo print the size like set; nothing to undo is exit 1 with the daemon's words; watch says undo and redo"
    )
    func undoRedo() throws {
        let fixture = try DaemonFixture()
        let nothing = try fixture.ctl(["undo"])
        #expect(
            nothing.status == 1 && nothing.out == ""
                && nothing.err.contains("There is nothing to undo."), "\(nothing)")
        let watch = try ChildProcess(
            productPath("snapsizectl")!, ["watch", "--count", "4"], environment: fixture.environment)
        #expect(waitUntil(timeout: 10) { watch.stderr.contains("Watching") })
        #expect(try fixture.ctl(["set", "80"]).out == "80\n")
        #expect(try fixture.ctl(["inc"]).out == "100\n")
        #expect(try fixture.ctl(["undo"]).out == "80\n")
        #expect(try fixture.ctl(["undo", "--json"]).out == "{\"index\":2,\"size\":60}\n")
        #expect(waitUntil(timeout: 10) { !watch.isRunning })
        #expect(
            watch.stdout
                == "commit 3 80 80 points\ncommit 4 100 100 points\nundo 3 80 80 points\nundo 2 60 60 points\n"
        )
        #expect(try fixture.ctl(["redo"]).out == "80\n")
        #expect(try fixture.ctl(["set", "40"]).status == 0)
        let refused = try fixture.ctl(["redo"])
        #expect(refused.status == 1 && refused.err.contains("There is nothing to redo."), "\(refused)")
    }

    @Test(
        "history: newest last, local time, before → after, kind, who; --limit; --json one object per line; the same in Portuguese"
    )
    func history() throws {
        let fixture = try DaemonFixture()
        _ = try fixture.ctl(["inc"])
        _ = try fixture.ctl(["set", "20"])
        _ = try fixture.ctl(["undo"])
        let plain = try fixture.ctl(["history"])
        #expect(plain.status == 0 && plain.err == "", "\(plain)")
        let lines = plain.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(plain.out)")
        // The shape of `14:03:27  60 → 80  step  snapsizectl inc (pid 4242)`: who is the command, always
        // known (the reply waited for it), and the pid.
        let pattern = try NSRegularExpression(
            pattern: #"^\d\d:\d\d:\d\d  (\d+) → (\d+)  (\w+)  snapsizectl (\w+) \(pid [1-9]\d*\)$"#)
        let parsed = lines.map { line -> [String] in
            guard let match = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))
            else { return [line] }
            return (1...4).map { String(line[Range(match.range(at: $0), in: line)!]) }
        }
        #expect(
            parsed == [
                ["60", "80", "step", "inc"], ["80", "20", "set", "set"], ["20", "80", "undo", "undo"]
            ], "\(plain.out)")
        #expect(try fixture.ctl(["history", "--limit", "1"]).out == lines[2] + "\n")
        let json = try fixture.ctl(["history", "--json"]).out.split(separator: "\n").map {
            try parseJSONObject(String($0))
        }
        #expect(json.map { $0["seq"] as? Int } == [1, 2, 3])
        #expect(json.map { $0["kind"] as? String } == ["step", "set", "undo"])
        #expect(json.map { [$0["from"] as? Int, $0["to"] as? Int] } == [[60, 80], [80, 20], [20, 80]])
        #expect(
            json.allSatisfy { by in
                let who = by["by"] as? [String: Any]
                return (who?["pid"] as? Int ?? 0) > 0
                    && (who?["command"] as? String)?.hasPrefix("snapsizectl ") == true
            })
        #expect(json.allSatisfy { abs(($0["time"] as? Int ?? 0) / 1_000_000 - Int(time(nil))) < 3600 })
        // Machine output never changes with the language; the plain output is the person's, the kind too.
        try #require(
            localeInstalled("pt_BR.UTF-8"),
            "pt_BR.UTF-8 is not installed: `make test` makes it (make locales)")
        _ = try compileCatalogs()
        let portuguese: [String: String?] = [
            "LANG": "pt_BR.UTF-8", "LANGUAGE": nil, "LC_ALL": nil, "LC_MESSAGES": nil
        ]
        #expect(
            try fixture.ctl(["history", "--json"], environment: portuguese).out
                == fixture.ctl(["history", "--json"]).out)
        let translated = try fixture.ctl(["history"], environment: portuguese)
        let words = translated.out.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(
            translated.status == 0
                && words.map { $0.count > 4 ? String($0[4]) : "" } == ["passo", "definição", "desfazer"],
            "\(translated)")
        #expect(translated.out.contains("snapsizectl inc (pid "), "\(translated)")
        let usage = try fixture.ctl(["history", "--limit", "x"])
        #expect(
            usage.status == 64 && usage.err.contains("--limit: 'x' is not a number of changes"),
            "\(usage)")
    }

    @Test(
        "history answers at a glance: 20 lines by default (newest last), --limit N, --all every change kept"
    )
    func lineCounts() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        // 25 changes, alternating, through the bus (a process each would only make the test slower).
        for index in 0..<25 { _ = try client.call(index % 2 == 0 ? "Increment" : "Decrement") }
        let all = try fixture.ctl(["history", "--all"]).out.split(separator: "\n")
        #expect(all.count == 25, "\(all)")
        let glance = try fixture.ctl(["history"]).out.split(separator: "\n")
        #expect(glance.count == 20 && glance == all.suffix(20), "\(glance)")
        #expect(try fixture.ctl(["history", "--limit", "3"]).out.split(separator: "\n") == all.suffix(3))
        #expect(
            try fixture.ctl(["history", "--limit", "30", "--json"]).out.split(separator: "\n").count
                == 25)
        let both = try fixture.ctl(["history", "--all", "--limit", "3"])
        #expect(
            both.status == 64 && both.err.contains("--limit and --all exclude each other"), "\(both)")
    }

    @Test(
        "short-lived clients (snapsizectl inc/dec, gdbus call), then history --json: every entry names the client's pid and command"
    )
    func namesTheClient() throws {
        let fixture = try DaemonFixture()
        for index in 0..<12 { #expect(try fixture.ctl([index % 2 == 0 ? "dec" : "inc"]).status == 0) }
        for _ in 0..<2 { #expect(try fixture.gdbusCall("Increment").status == 0) }
        let json = try fixture.ctl(["history", "--json"]).out.split(separator: "\n").map {
            try parseJSONObject(String($0))
        }
        let who = json.map { $0["by"] as? [String: Any] ?? [:] }
        #expect(who.count == 14)
        // Each client exits the moment it has its reply; the reply waited until the bus had told the
        // daemon the client's pid and /proc its command. On a loaded machine too (the whole suite).
        #expect(who.allSatisfy { ($0["pid"] as? Int ?? 0) > 0 }, "\(json)")
        let commands = who.map { $0["command"] as? String ?? "" }
        #expect(
            commands == (0..<12).map { $0 % 2 == 0 ? "snapsizectl dec" : "snapsizectl inc" } + [
                "gdbus call", "gdbus call"
            ], "\(json)")
    }

    @Test(
        "watch --json names short-lived clients with their process too: each line waits for the daemon to learn it"
    )
    func watchNamesTheClient() throws {
        let fixture = try DaemonFixture()
        let watch = try ChildProcess(
            productPath("snapsizectl")!, ["watch", "--json", "--count", "3"],
            environment: fixture.environment)
        #expect(waitUntil(timeout: 10) { watch.stderr.contains("Watching") }, "\(watch.stderr)")
        #expect(try fixture.ctl(["inc"]).status == 0)
        #expect(try fixture.gdbusCall("Decrement").status == 0)
        #expect(try fixture.ctl(["undo"]).status == 0)
        #expect(waitUntil(timeout: 10) { !watch.isRunning }, "\(watch.stdout) \(watch.stderr)")
        let lines = try watch.stdout.split(separator: "\n").map { try parseJSONObject(String($0)) }
        #expect(lines.map { $0["phase"] as? String } == ["commit", "commit", "undo"], "\(watch.stdout)")
        let by = lines.map { $0["by"] as? [String: Any] ?? [:] }
        #expect(
            by.map { $0["command"] as? String } == ["snapsizectl inc", "gdbus call", "snapsizectl undo"],
            "\(watch.stdout)")
        #expect(by.allSatisfy { ($0["pid"] as? Int ?? 0) > 0 }, "\(watch.stdout)")
    }
}
