import DBusKit
import SnapTexts

/// `snapsizectl focus`: the accessible slider takes screen-reader focus.
struct FocusCommand: Command {
    static let name = "focus"
    static let abstract = tr("Ask the accessible slider to take screen-reader focus (bind it to a shortcut).")
    static let discussion = tr("""
        Prints nothing on success; a screen reader then speaks the slider ("Circle size horizontal slider
        60 points"). Without an accessibility bus snapsized refuses with
        org.snapsize.SizeSelector1.Error.NoAccessibility (exit 1); 'snapsizectl doctor' says why.
        """)
    static let arguments: [ArgumentSpec] = [CommonArguments.timeout]

    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        try daemon.perform { () throws(MethodError) in try client.focus() }
    }
}
