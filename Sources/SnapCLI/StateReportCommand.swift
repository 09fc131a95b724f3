import DBusKit
import SizeSelectorContract

/// What `get`, `status` and `show` share: read every property once (`GetAll`), then print it
/// their own way. They take `--json` and `--timeout` and nothing else.
protocol StateReportCommand: Command {
    var json: Bool { get }
    var daemon: CallOptions { get }
    init(json: Bool, daemon: CallOptions)
    /// Prints `state`, plain or (with `json`) as one JSON object.
    func report(_ state: SelectorState, _ context: CommandContext)
}

extension StateReportCommand {
    static var arguments: [ArgumentSpec] { [CommonArguments.json, CommonArguments.timeout] }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.init(json: arguments.has("json"), daemon: try CallOptions(arguments))
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let state = try daemon.perform { () throws(MethodError) in try client.state() }
        report(state, context)
    }
}
