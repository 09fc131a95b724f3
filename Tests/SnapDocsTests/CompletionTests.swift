import Foundation
import Testing
import DBusKit
import SnapSettings
@testable import SnapDocs
import TestSupport

/// The completion scripts driven by the shells themselves: bash (`complete -p`, then the completion
/// function over a partial command line, as bash calls it, with compgen inside), fish (`complete -C`),
/// and zsh (syntax).
@Suite("shell completion", .serialized)
struct CompletionTests {
    let directory: String

    init() throws {
        directory = try makeTemporaryDirectory()
        for (path, text) in Documents.all(date: "2026-12-01") {
            let url = URL(fileURLWithPath: directory + "/" + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// PATH with the built snapsizectl first, and no session bus unless one is given.
    func environment(bus: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = productsDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus ?? "unix:path=/nonexistent/snapsize-no-bus"
        return environment
    }

    /// What bash offers for `line` (the cursor at its end), through the installed-style script.
    func bash(_ program: String, _ line: String, bus: String? = nil) throws -> [String] {
        let script = """
            source "$1"
            complete -p \(program) >&2 || exit 3
            line=$2
            read -r -a COMP_WORDS <<< "$line"
            [[ $line == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE=$line
            COMP_POINT=${#line}
            function=$(complete -p \(program) | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p')
            "$function" "\(program)" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try run(
            "bash",
            [
                "--norc", "-c", script, "bash", directory + "/bash-completion/completions/\(program)",
                line
            ],
            environment: environment(bus: bus))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "complete -F _\(program.replacingOccurrences(of: "-", with: "_")) \(program)"),
            "complete -p: \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(
        "bash: commands, options, option values, help's argument",
        arguments: [
            ("snapsizectl st", ["status"]),
            ("snapsizectl d", ["dec", "drag", "doctor"]),
            ("snapsizectl --ver", ["--version"]),
            ("snapsizectl help ad", ["adjust"]),
            ("snapsizectl watch --", ["--count", "--json", "--timeout", "--help"]),
            ("snapsizectl snap --layout ", ["ordinal", "numeric"]),
            ("snapsizectl set --index ", []),
            ("snapsized --lay", ["--layout"]),
            ("snapsized --layout ", ["ordinal", "numeric"]),
            ("snapsized --no-", ["--no-state", "--no-accessibility"])
        ])
    func bashCompletes(line: String, expected: [String]) throws {
        let program = String(line.prefix(while: { $0 != " " }))
        #expect(try bash(program, line) == expected, "\(line)")
    }

    /// The choices the daemon's option table gives --announce (whatever they are today).
    static var announceChoices: [String] {
        (DaemonOption.all.first { $0.name == "announce" }?.valueName ?? "").split(separator: "|").map(
            String.init)
    }

    @Test("bash: an option's choices come from the daemon's option table")
    func bashChoicesFromTable() throws {
        #expect(Self.announceChoices.count >= 2)
        #expect(try bash("snapsized", "snapsized --announce ") == Self.announceChoices)
    }

    @Test("bash: the allowed sizes of the running daemon for 'set', the defaults without one")
    func bashSizes() throws {
        #expect(try bash("snapsizectl", "snapsizectl set ") == ["20", "40", "60", "80", "100"])
        let bus = try PrivateSessionBus()
        let daemon = try startSnapsized(
            ["--no-accessibility", "--no-state", "--sizes", "12,24,48"],
            environment: bus.environment, busAddress: bus.address)
        defer { daemon.terminate(timeout: 2) }
        #expect(try bash("snapsizectl", "snapsizectl set ", bus: bus.address) == ["12", "24", "48"])
        #expect(try bash("snapsizectl", "snapsizectl set 4", bus: bus.address) == ["48"])
    }

    @Test("fish: complete -C offers commands, options and values")
    func fish() throws {
        for (name, file) in [("snapsizectl", "snapsizectl.fish"), ("snapsized", "snapsized.fish")] {
            let check = try run(
                "fish", ["--no-config", "-n", directory + "/fish/vendor_completions.d/" + file],
                environment: environment())
            #expect(check.status == 0, "\(name): \(check.stderr)")
        }
        func complete(_ line: String) throws -> [String] {
            let script = "source $argv[1]; source $argv[2]; complete -C \"$argv[3]\""
            let result = try run(
                "fish",
                [
                    "--no-config", "-c", script,
                    directory + "/fish/vendor_completions.d/snapsizectl.fish",
                    directory + "/fish/vendor_completions.d/snapsized.fish", line
                ],
                environment: environment())
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.prefix(while: { $0 != "\t" })) }
        }
        #expect(try complete("snapsizectl stat") == ["status"])
        #expect(try complete("snapsizectl snap --layout ").sorted() == ["numeric", "ordinal"])
        #expect(try complete("snapsizectl set ").sorted() == ["100", "20", "40", "60", "80"])
        #expect(try complete("snapsized --announce ").sorted() == Self.announceChoices.sorted())
    }

    @Test("zsh: the scripts parse")
    func zsh() throws {
        for name in ["_snapsizectl", "_snapsized"] {
            let result = try run(
                "zsh", ["-n", directory + "/zsh/vendor-completions/" + name], environment: environment())
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let text = try String(
                contentsOfFile: directory + "/zsh/vendor-completions/" + name, encoding: .utf8)
            #expect(text.hasPrefix("#compdef \(name.dropFirst())\n"))
        }
    }
}
