import DBusKit
import SnapTexts

/// `snapsizectl focus`: the accessible slider takes screen-reader focus.
struct FocusCommand: Command {
    static let name = "focus"
    static let abstract = tr(
        "Ask the accessible slider to take screen-reader focus (bind it to a shortcut).")
    static let discussion = tr(
        """
        Prints nothing on success; a screen reader then speaks the slider ("Circle size horizontal slider
        60 points"), which snapsized has handed to the accessibility bus before it answers. Without an
        accessibility bus it refuses with org.snapsize.SizeSelector1.Error.NoAccessibility, and with
        the error AccessibilityNotAnswering (of the same interface) when that bus does not answer
        within 2 seconds (exit 1); 'snapsizectl doctor' says why.
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
