import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl set SIZE` / `set +N` / `set -N` / `set --index N`: commits a size.
struct SetCommand: Command {
    static let name = "set"
    static let abstract = tr(
        "Commit the allowed size nearest to SIZE (+N/-N: N points more or less), or the size at --index N."
    )
    static let discussion = tr(
        """
        Prints the committed size. SIZE need not be allowed: the nearest allowed size is taken (ties to the
        larger, beyond the ends the end), so 'set 55' commits 60. A signed value is relative, as in
        brightnessctl and pactl: from 60, 'set +20' commits 80 and 'set -5' commits 60 again (55 snaps
        back), snapping the same way. An index beyond the last is refused
        (org.snapsize.SizeSelector1.Error.OutOfRange, exit 1). Refused while a preview is open (exit 1).
        """)
    static let arguments: [ArgumentSpec] = [
        .positional(
            "size", optional: true,
            help: tr(
                "A size in points (the nearest allowed size is committed), or +N/-N points from the committed size."
            )),
        .option("index", value: "n", help: tr("Commit the size at this index (0 is the smallest).")),
        CommonArguments.json, CommonArguments.timeout
    ]

    enum Target { case size(Int), relative(Int), index(Int) }
    let target: Target
    let json: Bool
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        switch (arguments.positionals.first, arguments["index"]) {
        case (let size?, nil):
            guard let value = Int(size), value >= Int(Int32.min), value <= Int(Int32.max) else {
                throw UsageError(tr("'%s' is not a whole number of points", size))
            }
            // Int("+20") is 20: the sign is what makes it relative, so look at the word itself.
            target = size.hasPrefix("+") || size.hasPrefix("-") ? .relative(value) : .size(value)
        case (nil, let index?):
            guard let value = Int(index), value >= 0, value <= Int(UInt32.max) else {
                throw UsageError(tr("--index: '%s' is not an index (0, 1, 2, ...)", index))
            }
            target = .index(value)
        case (_?, _?):
            throw UsageError(tr("give either <size> or --index <n>, not both"))
        case (nil, nil):
            throw UsageError(tr("missing <size> (or --index <n>)"))
        }
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let target = self.target
        let reply = try daemon.perform { () throws(MethodError) -> SelectorReply in
            switch target {
            case .size(let size):
                return try client.setSize(size)
            case .relative(let points):
                // Read, then set: SetSize snaps the sum (and clamps it) exactly as it snaps a typed size.
                let committed = try client.state().selectedSize
                return try client.setSize(Int(Int32(clamping: committed + points)))
            case .index(let index):
                return try client.setIndex(index)
            }
        }
        printSelection(reply, json: json, context.console)
    }
}

/// `index`/`size` as a line (`60`) or a JSON object; steps add `atLimit`.
func printSelection(_ reply: SelectorReply, json: Bool, _ console: Console, withLimit: Bool = false) {
    if json {
        var members: [(String, JSON)] = [("index", .int(reply.index)), ("size", .int(reply.size))]
        if withLimit { members.append(("atLimit", .bool(reply.atLimit))) }
        console.line(JSON.object(members).text)
    } else {
        console.line(String(reply.size))
    }
}
