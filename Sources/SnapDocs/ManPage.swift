import Foundation
import SnapCLI
import SnapTexts

/// The man page of a program, in the man(7) macros, generated from its ToolDocument.
public enum ManPage {
    /// `guide` is where the user guide is installed (`make install` passes its PREFIX's).
    public static func render(_ tool: ToolDocument, date: String, guide: String = defaultGuide) -> String
    {
        var page = Roff()
        page.macro("TH", tool.name.uppercased(), "1", date, "snapsize \(tool.version)", "User Commands")
        // Ragged right, since help text carries long unbreakable words (JSON examples, error names) that
        // a justified line cannot absorb without a formatter warning ("cannot adjust line"); no
        // hyphenation, so that names such as org.snapsize.SizeSelector1 stay whole. groff 1.23's man
        // macros restore adjustment and hyphenation at every paragraph from the AD string and the HY
        // register (which .TH clears), so those say it too; groff 1.22 keeps the requests.
        page.text(".ad l", escaped: false)
        page.text(".ds AD l", escaped: false)
        page.text(".nh", escaped: false)
        page.text(".nr HY 0", escaped: false)
        page.macro("SH", "NAME")
        page.text("\(tool.name) \\- \(tool.tagline)", escaped: false)
        page.macro("SH", "SYNOPSIS")
        for (index, line) in tool.synopsis.enumerated() {
            if index > 0 { page.macro("br") }
            page.synopsis(line)
        }
        page.macro("SH", "DESCRIPTION")
        page.prose(tool.description)
        if !tool.commands.isEmpty {
            page.macro("SH", "COMMANDS")
            for command in tool.commands {
                page.macro("SS", command.name)
                page.synopsis(command.synopsis)
                page.macro("PP")
                page.prose(command.abstract)
                if !command.discussion.isEmpty { page.prose(command.discussion) }
                page.macro("RS", "4")
                page.options(command.arguments)
                page.macro("RE")
            }
            // `help COMMAND`, which the parser and the completions know, is --help by another name.
            page.macro("SS", "help")
            page.synopsis("\(tool.name) help [<command>]")
            page.macro("PP")
            page.prose(
                tr(
                    "Show the help of a command, as '%s <command> --help' does; without one, the overview.",
                    tool.name))
        }
        page.macro("SH", "OPTIONS")
        page.options(tool.options)
        if !tool.signals.isEmpty {
            page.macro("SH", "SIGNALS")
            page.prose(tool.signals)
        }
        page.macro("SH", "EXIT STATUS")
        page.prose(tool.exitStatus)
        if !tool.environment.isEmpty {
            page.macro("SH", "ENVIRONMENT")
            for (name, meaning) in tool.environment {
                page.macro("TP")
                page.macro("B", name)
                page.text(meaning)
            }
        }
        if !tool.files.isEmpty {
            page.macro("SH", "FILES")
            for (path, meaning) in tool.files {
                page.macro("TP")
                page.macro("I", path)
                page.text(meaning)
            }
        }
        page.macro("SH", "SEE ALSO")
        page.text(
            tool.seeAlso.map { entry -> String in
                let parts = entry.split(separator: "(")
                return "\\fB\(Roff.escape(String(parts[0])))\\fR("
                    + parts.dropFirst().joined(separator: "(")
            }.joined(separator: ", "), escaped: false)
        page.macro("PP")
        // A path may break after any slash (\:), so a long PREFIX still fits the line.
        let path =
            "\\fI"
            + Roff.escape(guide).split(separator: "/", omittingEmptySubsequences: false).joined(
                separator: "/\\:") + "\\fR"
        // TRANSLATORS: the last paragraph of the man pages; %s is the guide's path, e.g. /usr/share/doc/snapsize/GUIDE.md.gz.
        let sentence = tr("The user guide, with first steps, keys and languages: %s (read it with zless).", "\u{1}")
        page.text(Roff.escape(sentence).replacingOccurrences(of: "\u{1}", with: path), escaped: false)
        return page.text
    }
}

/// A man(7) document under construction: escaping and the few macros the pages use.
struct Roff {
    private(set) var text = ""

    /// Text safe to put on a roff line: backslashes doubled as `\e`, option dashes as `\-` (so
    /// they copy as ASCII minus), and a line that would start with `.` or `'` guarded by `\&`.
    static func escape(_ string: String) -> String {
        var result = ""
        var previous: Character = " "
        for character in string {
            switch character {
            case "\\": result += "\\e"
            case "-"
            where previous == " " || previous == "-" || previous == "(" || previous == "["
                || previous == "'" || previous == "|":
                result += "\\-"
            default: result.append(character)
            }
            previous = character
        }
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }

    /// Lets a filled line break after a comma inside a word (`{"index":2,"size":60}`): `\:` is an
    /// invisible break point. Without it such a word can be wider than the page.
    static func breakable(_ line: String) -> String {
        var result = ""
        var previous: Character = " "
        for character in line {
            if previous == ",", character != " " { result += "\\:" }
            result.append(character)
            previous = character
        }
        return result
    }

    mutating func macro(_ name: String, _ arguments: String...) {
        let quoted = arguments.map { "\"" + Self.escape($0).replacingQuotes() + "\"" }
        text += "." + ([name] + quoted).joined(separator: " ") + "\n"
    }

    mutating func text(_ line: String, escaped: Bool = true) {
        text += (escaped ? Self.escape(line) : line) + "\n"
    }

    /// The widest line a no-fill block keeps as it is: 80 columns less the deepest indent there
    /// (7 for a section's text, 2 more for the block, and a margin).
    static let noFillWidth = 66

    /// Paragraphs from help text: plain lines are refilled by the formatter; a run of indented lines
    /// (examples, JSON, lists) keeps its layout.
    mutating func prose(_ string: String) {
        var indented = false
        for line in string.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let isIndented = line.hasPrefix("  ")
            if isIndented != indented {
                if isIndented {
                    macro("PP")
                    macro("RS", "2")
                    macro("nf")
                } else {
                    macro("fi")
                    macro("RE")
                    macro("PP")
                }
                indented = isIndented
            }
            if line.isEmpty {
                if !indented { macro("PP") }
                continue
            }
            if isIndented, line.count - 2 > Self.noFillWidth {
                // Wider than an 80-column terminal leaves a no-fill block (JSON examples, the doctor's
                // steps): filled instead, so that it wraps inside the block's indent.
                macro("fi")
                text(Self.breakable(Self.escape(String(line.dropFirst(2)))), escaped: false)
                macro("br")
                macro("nf")
            } else if isIndented {
                text(String(line.dropFirst(2)))
            } else {
                text(Self.breakable(Self.escape(line)), escaped: false)
            }
        }
        if indented {
            macro("fi")
            macro("RE")
        }
    }

    /// A usage line: the program and command in bold, placeholders in italics.
    mutating func synopsis(_ line: String) {
        let words = line.split(separator: " ").map { word -> String in
            let escaped = Self.escape(String(word))
            if word.contains("<") {
                return escaped.replacingOccurrences(of: "<", with: "\\fI").replacingOccurrences(
                    of: ">", with: "\\fR")
            }
            return word.hasPrefix("[") || word == "|" || word.hasPrefix("--")
                ? escaped : "\\fB" + escaped + "\\fR"
        }
        text(words.joined(separator: " "), escaped: false)
    }

    /// One `.TP` entry per option or argument: its synopsis, then its help.
    mutating func options(_ specs: [ArgumentSpec]) {
        for spec in specs {
            macro("TP")
            let name = spec.name == "help" ? "-h, --help" : spec.synopsis
            let escaped = Self.escape(name)
            text(
                "\\fB"
                    + escaped.replacingOccurrences(of: "<", with: "\\fI").replacingOccurrences(
                        of: ">", with: "\\fB") + "\\fR",
                escaped: false)
            text(spec.help)
        }
    }
}

private extension String {
    /// Inside a quoted macro argument a double quote is written `""`.
    func replacingQuotes() -> String {
        var result = ""
        for character in self {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result
    }

}
