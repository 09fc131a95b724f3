import SnapTexts

/// `snapsizectl dec [N]`.
struct DecCommand: StepCommand {
    static let name = "dec"
    static let abstract = tr("Commit the next smaller size (or N steps smaller).")
    static let discussion = tr("""
        Prints the committed size. At the smallest size nothing changes, the size is printed as usual and
        stderr says 'already at the smallest size, 20 points' (N steps that stop early there: 'stopped at
        the smallest size, 20 points'); the exit status is still 0.
        With --json: {"index":1,"size":40,"atLimit":false}. Refused while a preview is open (exit 1).
        """)
    static let direction = -1
    static var arguments: [ArgumentSpec] { stepArguments }
    let steps: Int, json: Bool, daemon: DaemonOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        steps = try Self.parseSteps(arguments)
        json = arguments.has("json")
        daemon = try DaemonOptions(arguments)
    }
}
