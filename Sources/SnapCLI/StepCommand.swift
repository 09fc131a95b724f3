import DBusKit
import SnapTexts

/// What `inc` and `dec` share: parse `[N]`, step, print, and mention a limit on stderr.
protocol StepCommand: Command {
    /// +1 for `inc`, -1 for `dec`.
    static var direction: Int { get }
    var steps: Int { get }
    var json: Bool { get }
    var daemon: DaemonOptions { get }
}

extension StepCommand {
    static var stepArguments: [ArgumentSpec] { [
        .positional("n", optional: true, help: tr("How many steps (default 1); the selection stops at the end of the list.")),
        CommonArguments.json, CommonArguments.timeout,
    ] }

    static func parseSteps(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        guard let text = arguments.positionals.first else { return 1 }
        guard let value = Int(text), value >= 1, value <= Int(Int32.max) else {
            throw UsageError(tr("'%s' is not a number of steps (1, 2, 3, ...)", text))
        }
        return value
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let steps = self.steps * Self.direction
        // Several steps can end early at the last size; knowing where we started tells "already
        // there" from "stopped there". One step at a limit never moved.
        let before = self.steps > 1 ? (try? client.state())?.selectedIndex : nil
        let reply = try daemon.perform { () throws(MethodError) in try client.step(by: steps) }
        printSelection(reply, json: json, context.console, withLimit: true)
        if reply.atLimit {
            let valueText = (try? client.state())?.valueText(index: reply.index) ?? String(reply.size)
            let moved = before.map { $0 != reply.index } ?? false
            context.console.errorLine(Texts.limitNote(largest: Self.direction > 0, moved: moved, valueText: valueText))
        }
    }
}

/// `snapsizectl inc [N]`.
struct IncCommand: StepCommand {
    static let name = "inc"
    static let abstract = tr("Commit the next larger size (or N steps larger).")
    static let discussion = tr("""
        Prints the committed size. At the largest size nothing changes, the size is printed as usual and
        stderr says 'already at the largest size, 100 points' (N steps that stop early there: 'stopped at
        the largest size, 100 points'); the exit status is still 0.
        With --json: {"index":3,"size":80,"atLimit":false}. Refused while a preview is open (exit 1).
        """)
    static let direction = 1
    static var arguments: [ArgumentSpec] { stepArguments }
    let steps: Int, json: Bool, daemon: DaemonOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        steps = try Self.parseSteps(arguments)
        json = arguments.has("json")
        daemon = try DaemonOptions(arguments)
    }
}
