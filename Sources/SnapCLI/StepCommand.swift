import DBusKit
import SnapTexts

/// `snapsizectl inc [N]` and `snapsizectl dec [N]`: parse `[N]`, step, print, and mention a limit
/// on stderr. The two differ only in their words and their sign (`StepDirection`).
struct StepCommand<Direction: StepDirection>: Command {
    static var name: String { Direction.name }
    static var abstract: String { Direction.abstract }
    static var discussion: String { Direction.discussion }
    static var arguments: [ArgumentSpec] {
        [
            .positional(
                "n", optional: true,
                help: tr("How many steps (default 1); the selection stops at the end of the list.")),
            CommonArguments.json, CommonArguments.timeout
        ]
    }

    let steps: Int, json: Bool, daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        steps = try Self.parseSteps(arguments)
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    static func parseSteps(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        guard let text = arguments.positionals.first else { return 1 }
        guard let value = Int(text), value >= 1, value <= Int(Int32.max) else {
            throw UsageError(tr("'%s' is not a number of steps (1, 2, 3, ...)", text))
        }
        return value
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let steps = self.steps * Direction.sign
        // Several steps can end early at the last size; knowing where we started tells "already
        // there" from "stopped there". One step at a limit never moved.
        let before = self.steps > 1 ? (try? client.state())?.selectedIndex : nil
        let reply = try daemon.perform { () throws(MethodError) in try client.step(by: steps) }
        printSelection(reply, json: json, context.console, withLimit: true)
        if reply.atLimit {
            let valueText = (try? client.state())?.valueText(index: reply.index) ?? String(reply.size)
            let moved = before.map { $0 != reply.index } ?? false
            context.console.errorLine(
                Texts.limitNote(largest: Direction.sign > 0, moved: moved, valueText: valueText))
        }
    }
}

/// What tells `inc` from `dec`: the command's words and which way it steps.
protocol StepDirection {
    static var name: String { get }
    static var abstract: String { get }
    static var discussion: String { get }
    /// +1 for `inc`, -1 for `dec`.
    static var sign: Int { get }
}

typealias IncCommand = StepCommand<Larger>
typealias DecCommand = StepCommand<Smaller>

enum Larger: StepDirection {
    static let name = "inc"
    static let abstract = tr("Commit the next larger size (or N steps larger).")
    static let discussion = tr(
        """
        Prints the committed size. At the largest size nothing changes, the size is printed as usual and
        stderr says 'already at the largest size, 100 points' (N steps that stop early there: 'stopped at
        the largest size, 100 points'); the exit status is still 0.
        With --json: {"index":3,"size":80,"atLimit":false}. Refused while a preview is open (exit 1).
        """)
    static let sign = 1
}

enum Smaller: StepDirection {
    static let name = "dec"
    static let abstract = tr("Commit the next smaller size (or N steps smaller).")
    static let discussion = tr(
        """
        Prints the committed size. At the smallest size nothing changes, the size is printed as usual and
        stderr says 'already at the smallest size, 20 points' (N steps that stop early there: 'stopped at
        the smallest size, 20 points'); the exit status is still 0.
        With --json: {"index":1,"size":40,"atLimit":false}. Refused while a preview is open (exit 1).
        """)
    static let sign = -1
}
