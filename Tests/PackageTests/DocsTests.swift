import Foundation
import Testing
import TestSupport

/// The README stays an index and the docs stay connected: every relative link in README.md, docs/*.md
/// and the performance log names a file that exists (and a heading in it, for `#anchor`), and neither the
/// README nor a comment in Sources/ carries a measured figure. Measurements belong in
/// Benchmarks/PERFORMANCE-LOG.md, the latest table in docs/PERFORMANCE.md; code and prose name the
/// constant they mean (`SpeechTiming.window`) rather than repeating its value.
@Suite("Documentation")
struct DocsTests {
    /// The documents whose links are checked, relative to the package's folder.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "Benchmarks/PERFORMANCE-LOG.md"] + docs
    }

    @Test(
        "every relative link in README.md, docs/*.md and the performance log resolves, anchors included")
    func linksResolve() throws {
        let documents = try Self.documents()
        #expect(documents.count > 3, "found only \(documents) under \(repositoryRoot)")
        var checked = 0
        for document in documents {
            let text = try String(contentsOfFile: repositoryRoot + "/" + document, encoding: .utf8)
            for link in Markdown.links(in: text) where !link.contains(":") {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0]), anchor = parts.count > 1 ? String(parts[1]) : nil
                let folder = (document as NSString).deletingLastPathComponent
                let target =
                    path.isEmpty
                    ? document
                    : ((folder as NSString).appendingPathComponent(path) as NSString).standardizingPath
                var isFolder: ObjCBool = false
                guard
                    FileManager.default.fileExists(
                        atPath: repositoryRoot + "/" + target, isDirectory: &isFolder)
                else {
                    Issue.record("\(document): the link \(link) names \(target), which does not exist")
                    continue
                }
                guard let anchor else { continue }
                #expect(
                    !isFolder.boolValue && target.hasSuffix(".md"),
                    "\(document): \(link): an anchor in a file that is not Markdown")
                let headings = Markdown.anchors(
                    in: try String(contentsOfFile: repositoryRoot + "/" + target, encoding: .utf8))
                #expect(
                    headings.contains(anchor),
                    "\(document): \(link): \(target) has no heading #\(anchor)")
            }
        }
        #expect(checked > 20, "only \(checked) links found: is the link pattern still right?")
    }

    @Test("README.md carries no measured figure (times, sizes, percentages, ratios, instruction counts)")
    func readmeHasNoFigures() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let found = MeasuredFigure.occurrences(in: text).map { "README.md:\($0.line): \($0.figure)" }
        #expect(
            found.isEmpty,
            "measurements go to Benchmarks/PERFORMANCE-LOG.md (the latest table to docs/PERFORMANCE.md):\n\(found.joined(separator: "\n"))"
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 150, "README.md has \(lines) lines: it is an index; move the detail to docs/")
    }

    @Test("comments in Sources/ carry no measured figure (they say why; the figures are in the log)")
    func commentsHaveNoFigures() throws {
        let sources = repositoryRoot + "/Sources"
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources))
        var found: [String] = [], files = 0
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            files += 1
            let text = try String(contentsOfFile: sources + "/" + path, encoding: .utf8)
            let comments = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                SwiftComment.of(String($0))
            }
            for hit in MeasuredFigure.occurrences(in: comments.joined(separator: "\n")) {
                found.append("Sources/\(path):\(hit.line): \(hit.figure)")
            }
        }
        #expect(files > 50)
        #expect(
            found.isEmpty,
            "name the constant, or move the measurement to Benchmarks/PERFORMANCE-LOG.md:\n\(found.joined(separator: "\n"))"
        )
    }

    @Test("the figure and link patterns catch what they should and pass what they should")
    func patterns() {
        for measured in [
            "took 2.3 ms", "437 µs", "5.5 MiB", "a 400 KB table", "2%", "1.02x the floor",
            "~180k instructions", "+1.3k"
        ] {
            #expect(!MeasuredFigure.occurrences(in: measured).isEmpty, "\(measured)")
        }
        for plain in [
            "Swift 6.3.1", "Debian 12", "20, 40, 60, 80 or 100 points", "Orca 48", "0x1F",
            "4 x 50 calls", "Apache-2.0", "`%s`"
        ] {
            #expect(MeasuredFigure.occurrences(in: plain).isEmpty, "\(plain)")
        }
        #expect(
            Markdown.links(in: "see [a](docs/A.md#b-c) and [`x`](../y) `[no](z)`\n```\n[no](w)\n```")
                == ["docs/A.md#b-c", "../y"])
        #expect(
            Markdown.anchors(
                in:
                    "# Set-up (Debian 12)\n### History, undo and redo\n## `make install`\n## Tests\n## Tests\n```\n# no\n```"
            )
                == ["set-up-debian-12", "history-undo-and-redo", "make-install", "tests", "tests-1"])
        #expect(SwiftComment.of(#"let x = "a // b" // 2 ms"#) == "// 2 ms")
        #expect(SwiftComment.of(#"let url = "http://x""#) == "")
    }
}

/// A number with a unit of time, size, share, ratio or instructions: what a measurement is written as.
/// Version numbers, the default sizes and counts of things pass.
enum MeasuredFigure {
    static let pattern = try! NSRegularExpression(
        pattern: #"""
            (?<![\w.])[~+]?\d[\d,]*(?:\.\d+)?(?:\s?(?:ms|µs|us|ns|KB|kB|MB|GB|KiB|MiB|GiB)\b|\s?%|x\b|k\b|k?\s(?:instructions|instr)\b)
            """#)

    static func occurrences(in text: String) -> [(line: Int, figure: String)] {
        var found: [(Int, String)] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        {
            let line = String(line), range = NSRange(line.startIndex..., in: line)
            for match in pattern.matches(in: line, range: range) {
                found.append((number + 1, String(line[Range(match.range, in: line)!])))
            }
        }
        return found
    }
}

/// Just enough Markdown (and Swift) reading for these checks.
enum Markdown {
    /// The targets of inline links `[text](target)`, outside code spans and fenced blocks.
    static func links(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var links: [String] = []
        for line in prose(text) {
            let line = withoutCodeSpans(line)
            for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                links.append(String(line[Range(match.range(at: 1), in: line)!]))
            }
        }
        return links
    }

    /// The anchors of a document's headings, as GitHub makes them: lower case, punctuation dropped,
    /// spaces as hyphens, a repeated heading numbered.
    static func anchors(in text: String) -> [String] {
        var seen: [String: Int] = [:], anchors: [String] = []
        for line in prose(text) where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let slug = String(
                String.UnicodeScalarView(
                    title.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
                        if scalar == " " { return "-" }
                        return CharacterSet.alphanumerics.contains(scalar) || scalar == "-"
                            || scalar == "_" ? scalar : nil
                    }))
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The lines outside fenced code blocks.
    static func prose(_ text: String) -> [String] {
        var inFence = false, lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if !inFence { lines.append(String(line)) }
        }
        return lines
    }

    static func withoutCodeSpans(_ line: String) -> String {
        var out = "", inCode = false
        for character in line {
            if character == "`" { inCode.toggle(); continue }
            if !inCode { out.append(character) }
        }
        return out
    }
}

enum SwiftComment {
    /// The `//` comment of one line of Swift, or "" (a `//` inside a string literal does not count).
    static func of(_ line: String) -> String {
        var inString = false, escaped = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if escaped {
                escaped = false
            } else if character == "\\" && inString {
                escaped = true
            } else if character == "\"" {
                inString.toggle()
            } else if !inString && line[index...].hasPrefix("//") {
                return String(line[index...])
            }
            index = line.index(after: index)
        }
        return ""
    }
}
