import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl status`: every property of the selector, aligned.
struct StatusCommand: StateReportCommand {
    static let name = "status"
    static let abstract = tr("Print everything: sizes, committed and shown size, preview, value text, label, layout.")
    static let discussion = tr("""
        Plain output is one 'key: value' line per property, values aligned:
          label:       Circle size
          sizes:       20 40 60 80 100
          committed:   60 (index 2)
          ...
        With --json: one object with every property (sizes, selectedIndex, selectedSize, shownIndex,
        shownSize, previewing, valueText, label, trackWidth, trackInset, layout).
        """)
    let json: Bool
    let daemon: DaemonOptions

    func report(_ state: SelectorState, _ context: CommandContext) {
        if json {
            context.console.line(Self.json(state).text)
        } else {
            context.console.out(Self.plain(state))
        }
    }

    static func json(_ state: SelectorState) -> JSON {
        .object([
            ("sizes", .array(state.sizes.map { .int($0) })),
            ("selectedIndex", .int(state.selectedIndex)), ("selectedSize", .int(state.selectedSize)),
            ("shownIndex", .int(state.shownIndex)), ("shownSize", .int(state.shownSize)),
            ("previewing", .bool(state.previewing)), ("valueText", .string(state.valueText)),
            ("label", .string(state.label)), ("trackWidth", .double(state.trackWidth)),
            ("trackInset", .double(state.trackInset)), ("layout", .string(state.layout)),
        ])
    }

    static func plain(_ state: SelectorState) -> String {
        let rows: [(String, String)] = [
            ("label", state.label),
            ("sizes", state.sizes.map(String.init).joined(separator: " ")),
            ("committed", "\(state.selectedSize) (index \(state.selectedIndex))"),
            ("shown", "\(state.shownSize) (index \(state.shownIndex))"),
            ("previewing", state.previewing ? "yes" : "no"),
            ("value text", state.valueText),
            ("layout", state.layout),
            ("track", "width \(formatSeconds(state.trackWidth)), inset \(formatSeconds(state.trackInset))"),
        ]
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { key, value in
            key + ":" + String(repeating: " ", count: width - key.count - 1) + value + "\n"
        }.joined()
    }
}
