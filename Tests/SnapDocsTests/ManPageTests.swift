import Foundation
import Testing
import SnapCLI
import SnapSettings
@testable import SnapDocs
import TestSupport

/// The man pages as man-db renders them: no formatter warnings, and every command and option of the
/// tables that --help is made of.
@Suite("man pages")
struct ManPageTests {
    /// Renders `page` the way lintian checks pages; returns (text, warnings).
    func render(_ page: String, width: Int) throws -> (text: String, warnings: String) {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try page.write(toFile: directory + "/page.1", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["MANROFFSEQ"] = ""
        environment["MANWIDTH"] = String(width)
        // As lintian runs it: troff output thrown away, warnings on stderr.
        let lint = try run(
            "man", ["--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", directory + "/page.1"],
            environment: environment)
        #expect(lint.status == 0, "\(lint.stderr)")
        // As a person reads it, as plain text.
        let plain = try run("man", ["-l", directory + "/page.1"], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        return (plain.stdout, lint.stderr)
    }

    @Test("snapsizectl(1): no warnings at 60, 80 and 132 columns; every command and option is there")
    func snapsizectl() throws {
        let page = ManPage.render(.snapsizectl, date: "2026-12-01")
        for width in [60, 80, 132] {
            let (text, warnings) = try render(page, width: width)
            #expect(warnings == "", "width \(width): \(warnings)")
            guard width == 80 else { continue }
            #expect(text.contains("SNAPSIZECTL(1)"))
            for command in Tool.descriptions {
                #expect(text.contains("\n   \(command.name)\n"), "no section for \(command.name)")
                for spec in command.arguments where !spec.isPositional {
                    #expect(text.contains("--\(spec.name)"), "\(command.name) lacks --\(spec.name)")
                }
            }
            for section in [
                "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT",
                "SEE ALSO"
            ] {
                #expect(text.contains("\n\(section)\n"), "no \(section)")
            }
            #expect(text.contains("XDG_RUNTIME_DIR"))
        }
    }

    @Test("snapsized(1): no warnings; every option of the daemon's table")
    func snapsized() throws {
        let (text, warnings) = try render(ManPage.render(.snapsized, date: "2026-12-01"), width: 80)
        #expect(warnings == "", "\(warnings)")
        for option in DaemonOption.all {
            #expect(text.contains("--\(option.name)"), "lacks --\(option.name)")
        }
        #expect(text.contains("FILES") && text.contains("$XDG_STATE_HOME/snapsize/state"))
        #expect(
            text.contains("\nSIGNALS\n") && text.contains("SIGHUP"), "no SIGNALS section naming SIGHUP")
    }

    @Test(
        "both pages read in an 80-column terminal: no line wider, ENVIRONMENT names the language variables, help is listed"
    )
    func eightyColumns() throws {
        for tool in ToolDocument.all {
            let (text, _) = try render(ManPage.render(tool, date: "2026-12-01"), width: 80)
            let wide = text.split(separator: "\n").filter { $0.count > 80 }
            #expect(wide.isEmpty, "\(tool.name): \(wide.joined(separator: "\n"))")
            for variable in ["LANGUAGE", "LC_ALL, LC_MESSAGES, LANG"] {
                #expect(
                    text.contains("\n       \(variable)\n"),
                    "\(tool.name): ENVIRONMENT lacks \(variable)")
            }
        }
        let (text, _) = try render(ManPage.render(.snapsizectl, date: "2026-12-01"), width: 80)
        // The hidden `help` command, which the completions offer, has its section.
        #expect(text.contains("\n   help\n       snapsizectl help [command]\n"), "\(text)")
        // A sentence is not split around an example: watch's "by" paragraph ends before its example.
        let watch = try #require(text.range(of: "In --json, \"by\" is the client"))
        let paragraph = text[watch.lowerBound...].prefix { $0 != "{" }
        #expect(paragraph.contains("accessibility bus:"), "\(paragraph)")
        #expect(!text.contains("\n       left, or a change"), "\(text)")
        // get says what it prints once.
        #expect(!text.contains("Prints the committed size, e.g."))
    }

    @Test("roff escaping: backslashes, option dashes, a leading dot")
    func escaping() {
        #expect(Roff.escape("a\\b") == "a\\eb")
        #expect(Roff.escape("--json and x-y") == "\\-\\-json and x-y")
        #expect(Roff.escape(".hidden") == "\\&.hidden")
        #expect(Roff.escape("'quoted'") == "\\&'quoted'")
        #expect(Roff.breakable("{\"a\":1,\"b\":2}, c") == "{\"a\":1,\\:\"b\":2}, c")
    }

    @Test(
        "SEE ALSO names the installed guide (a long PREFIX's too, broken after a slash); groff -ww at 80 columns warns of nothing; adjustment and hyphenation stay off for groff 1.23"
    )
    func guideAndGroff() throws {
        let long = "/home/a-rather-long-user-name/.local/share/doc/snapsize/GUIDE.md.gz"
        for tool in ToolDocument.all {
            for guide in [ManPage.defaultGuide, long] {
                let page = ManPage.render(tool, date: "2026-12-01", guide: guide)
                for width in [60, 80] {
                    let (text, warnings) = try render(page, width: width)
                    #expect(warnings == "", "\(tool.name) at \(width): \(warnings)")
                    let seeAlso = try #require(
                        text.range(of: "\nSEE ALSO\n"), "\(tool.name): no SEE ALSO")
                    let words = text[seeAlso.upperBound...].split(whereSeparator: {
                        $0 == " " || $0 == "\n"
                    }).joined()
                    #expect(
                        words.contains(guide.split(separator: " ").joined()),
                        "\(tool.name) at \(width): \(text[seeAlso.upperBound...])")
                }
                // groff itself (preconv for UTF-8: -k), every warning on, the page 80 columns wide (as MANWIDTH=80 makes it).
                let directory = try makeTemporaryDirectory()
                defer { try? FileManager.default.removeItem(atPath: directory) }
                try page.write(toFile: directory + "/page.1", atomically: true, encoding: .utf8)
                let groff = try run(
                    "/usr/bin/groff", ["-k", "-ww", "-man", "-Tutf8", "-rLL=80n", directory + "/page.1"],
                    environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
                #expect(groff.status == 0 && groff.stderr == "", "\(tool.name): \(groff.stderr)")
            }
            // groff 1.23's man macros restore the adjustment (AD) and hyphenation (HY) at every paragraph,
            // from what the page sets after .TH (which clears them).
            let lines = ManPage.render(tool, date: "2026-12-01").split(separator: "\n")
            let title = try #require(lines.firstIndex { $0.hasPrefix(".TH ") })
            #expect(
                lines[(title + 1)...].prefix(4).sorted() == [".ad l", ".ds AD l", ".nh", ".nr HY 0"],
                "\(lines.prefix(6))")
        }
    }
}
