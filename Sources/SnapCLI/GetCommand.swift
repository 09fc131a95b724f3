import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl get`: the committed size.
struct GetCommand: StateReportCommand {
    static let name = "get"
    static let abstract = tr("Print the committed size.")
    static let discussion = tr(
        """
        For example '60'; with --json: {"index":2,"size":60,"valueText":"60 points"}.
        While someone previews another size, this is still the committed one (see 'status' and 'show').
        """)
    let json: Bool
    let daemon: CallOptions

    func report(_ state: SelectorState, _ context: CommandContext) {
        if json {
            context.console.line(
                JSON.object([
                    ("index", .int(state.selectedIndex)), ("size", .int(state.selectedSize)),
                    ("valueText", .string(state.valueText(index: state.selectedIndex)))
                ]).text)
        } else {
            context.console.line(String(state.selectedSize))
        }
    }
}
