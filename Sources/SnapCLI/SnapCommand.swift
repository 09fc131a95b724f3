import SnapCore
import SnapSettings
import SnapTexts

/// `snapsizectl snap --x X`: the core's pointer mapping, offline (no daemon needed).
struct SnapCommand: Command {
    static let name = "snap"
    static let abstract = tr("Map a pointer x on the track to an index and size, without a daemon.")
    static let discussion = tr(
        """
        Prints the index and the size, e.g. '1 40' for --x 51 with the defaults
        (sizes 20,40,60,80,100 on a track 336 wide with an inset of 12).
        """)
    static let requiredOptions: Set<String> = ["x"]
    static let arguments: [ArgumentSpec] = [
        .option("x", value: "x", help: tr("Pointer position on the track, in points.")),
        .option(
            "sizes", value: "list",
            help: tr("Allowed sizes, strictly increasing (default 20,40,60,80,100).")),
        .option("width", value: "points", help: tr("Track width (default 336).")),
        .option(
            "inset", value: "points",
            help: tr("Thumb radius: the thumb centre stays this far from each end (default 12).")),
        .option(
            "layout", value: "ordinal|numeric",
            help: tr("Equal steps, or positions proportional to the sizes (default ordinal).")),
        CommonArguments.json
    ]

    let x: Double
    let snapper: Snapper
    let json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let xText = arguments["x"] else { throw UsageError(tr("missing --x <x>")) }
        do {
            x = try OptionValues.number(xText, option: "--x")
            snapper = try OptionValues.snapper(
                sizes: arguments["sizes"].map { text throws(InvalidValue) in try OptionValues.sizes(text)
                },
                width: arguments["width"].map { text throws(InvalidValue) in
                    try OptionValues.number(text, option: "--width")
                },
                inset: arguments["inset"].map { text throws(InvalidValue) in
                    try OptionValues.number(text, option: "--inset")
                },
                layout: arguments["layout"].map { text throws(InvalidValue) in
                    try OptionValues.layout(text)
                },
                trackOptions: "--width/--inset")
        } catch {
            throw UsageError(error.message)
        }
        json = arguments.has("json")
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let index: Int
        do {
            index = try snapper.index(at: x)
        } catch {
            // Unreachable for parsed input (x is finite), but never trap on user input.
            throw CommandFailure(.usage, Texts.refusal(error))
        }
        let size = snapper.sizes[index]
        if json {
            context.console.line(
                JSON.object([
                    ("x", .double(x)), ("index", .int(index)), ("size", .int(size)),
                    ("layout", .string(snapper.layout.rawValue))
                ]).text)
        } else {
            context.console.line("\(index) \(size)")
        }
    }
}
