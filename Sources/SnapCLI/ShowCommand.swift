import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl show`: a picture of the track.
struct ShowCommand: StateReportCommand {
    static let name = "show"
    static let abstract = tr(
        "Draw the track: the sizes, the thumb at the shown size, the committed size if a preview differs."
    )
    static let discussion = tr(
        """
        The thumb is in brackets at the shown size: '20 - 40 - [60] - 80 - 100'. While a preview shows another
        size, the committed one is in parentheses and a second line says which is which:
          20 - 40 - (60) - [80] - 100
          preview 80 points, committed 60 points
        On a terminal the line is drawn with Unicode ('─') and colour (the thumb bold and reversed, the
        committed size underlined); NO_COLOR or TERM=dumb turn colour off. Piped: plain ASCII, as above.
        With --json: {"sizes":[...],"shownIndex":3,"selectedIndex":2,"previewing":true,"text":"..."}.
        """)
    let json: Bool
    let daemon: CallOptions

    func report(_ state: SelectorState, _ context: CommandContext) {
        if json {
            context.console.line(
                JSON.object([
                    ("sizes", .array(state.sizes.map { .int($0) })),
                    ("shownIndex", .int(state.shownIndex)), ("shownSize", .int(state.shownSize)),
                    ("selectedIndex", .int(state.selectedIndex)),
                    ("selectedSize", .int(state.selectedSize)),
                    ("previewing", .bool(state.previewing)),
                    (
                        "text",
                        .string(
                            Self.render(state, style: .ascii).split(separator: "\n").first.map(
                                String.init) ?? "")
                    )
                ]).text)
            return
        }
        let environment = context.environment
        let style: Style
        if context.console.isTerminal {
            let colour = environment["NO_COLOR"].map(\.isEmpty) ?? true && environment["TERM"] != "dumb"
            style = colour ? .colour : .unicode
        } else {
            style = .ascii
        }
        context.console.out(Self.render(state, style: style))
    }

    enum Style { case ascii, unicode, colour }

    /// The picture, one line (two while a preview differs from the committed size), newline-terminated.
    static func render(_ state: SelectorState, style: Style) -> String {
        let differs = state.shownIndex != state.selectedIndex
        let ticks = state.sizes.enumerated().map { index, size -> String in
            if index == state.shownIndex {
                return style == .colour ? "\u{1B}[1;7m[\(size)]\u{1B}[0m" : "[\(size)]"
            }
            if differs && index == state.selectedIndex {
                return style == .colour ? "\u{1B}[4m(\(size))\u{1B}[0m" : "(\(size))"
            }
            return String(size)
        }
        var text = ticks.joined(separator: style == .ascii ? " - " : " ─ ") + "\n"
        if differs {
            text +=
                Texts.printable(
                    tr(
                        "preview %s, committed %s", state.valueText(index: state.shownIndex),
                        state.valueText(index: state.selectedIndex))) + "\n"
        }
        return text
    }
}
