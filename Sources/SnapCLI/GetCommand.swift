import DBusKit

/// `snapsizectl get`: the committed size.
struct GetCommand: Command {
    static let name = "get"
    static let abstract = "Print the committed size."
    static let discussion = """
        Prints the committed size, e.g. '60'. With --json: {"index":2,"size":60,"valueText":"60 points"}.
        While someone previews another size, this is still the committed one (see 'status' and 'show').
        """
    static let arguments: [ArgumentSpec] = [CommonArguments.json, CommonArguments.timeout]

    let json: Bool
    let daemon: DaemonOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        daemon = try DaemonOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let state = try daemon.perform { () throws(MethodError) in try client.state() }
        if json {
            context.console.line(JSON.object([
                ("index", .int(state.selectedIndex)), ("size", .int(state.selectedSize)),
                ("valueText", .string("\(state.selectedSize) \(state.unit)")),
            ]).text)
        } else {
            context.console.line(String(state.selectedSize))
        }
    }
}
