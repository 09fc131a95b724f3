import DBusKit
import SizeSelectorContract
import SnapSettings
import SnapTexts
#if canImport(Glibc)
    import Glibc
#endif

/// `snapsizectl drag X1 X2 … --release X | --cancel`: a scripted pointer gesture on one connection.
struct DragCommand: Command {
    static let name = "drag"
    static let abstract = tr(
        "Play a pointer gesture: Preview at each x, then Commit at the --release x (or --cancel).")
    static let discussion = tr(
        """
        The x values are positions on the track in points (see 'status' for its width and inset). One
        connection holds the preview for the whole gesture. Prints each previewed size, then the result:
          preview 40
          preview 60
          commit 60
        The committed size comes from the release x itself, not from the last preview. With --cancel the
        last line is 'cancel' and the committed size, unchanged. With --json one object:
          {"previews":[{"x":80,"index":1,"size":40}],"result":"commit","x":130,"index":2,"size":60}
        Ctrl-C during the gesture cancels the preview (exit 130).
        """)
    static let requiredOptions: Set<String> = []
    static let arguments: [ArgumentSpec] = [
        .positional("x", repeating: true, help: tr("Pointer positions to preview, in order.")),
        .option("release", value: "x", help: tr("Release here: commit the size under this x.")),
        .flag("cancel", help: tr("Cancel at the end instead of releasing.")),
        .option("interval", value: "seconds", help: tr("Pause between the steps (default 0).")),
        CommonArguments.json, CommonArguments.timeout
    ]

    let xs: [Double]
    let release: Double?
    let interval: Double
    let json: Bool
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        do {
            xs = try arguments.positionals.map { text throws(InvalidValue) in
                try OptionValues.number(text, option: "<x>")
            }
            release = try arguments["release"].map { text throws(InvalidValue) in
                try OptionValues.number(text, option: "--release")
            }
            interval =
                try arguments["interval"].map { text throws(InvalidValue) in
                    try OptionValues.number(text, option: "--interval")
                } ?? 0
        } catch {
            throw UsageError(error.message)
        }
        guard interval >= 0, interval <= 3600 else {
            throw UsageError(tr("--interval: give 0 to 3600 seconds"))
        }
        switch (release, arguments.has("cancel")) {
        case (nil, false): throw UsageError(tr("end the gesture with --release <x> or --cancel"))
        case (_?, true): throw UsageError(tr("give --release <x> or --cancel, not both"))
        default: break
        }
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let console = context.console
        let loop = EventLoop()
        var previews: [(x: Double, reply: SelectorReply)] = []
        var failure: CommandFailure?
        var interrupted = false
        var finished = false

        func fail(_ error: MethodError) {
            failure = CommandFailure(error, timeoutSeconds: daemon.timeoutSeconds)
            loop.stop()
        }
        func step(_ position: Int) {
            if position < xs.count {
                do {
                    let reply = try client.preview(x: xs[position])
                    previews.append((xs[position], reply))
                    if !json { console.line("preview \(reply.size)") }
                } catch {
                    return fail(error)
                }
                loop.schedule(after: interval) { step(position + 1) }
                return
            }
            do {
                let result: SelectorReply
                if let release {
                    result = try client.commit(x: release)
                } else {
                    try client.cancel()
                    let state = try client.state()
                    result = SelectorReply(index: state.selectedIndex, size: state.selectedSize)
                }
                finished = true
                report(result, console: console, previews: previews)
            } catch {
                fail(error)
            }
            loop.stop()
        }
        loop.onSignal(SIGINT) {
            interrupted = true; loop.stop()
        }
        loop.onSignal(SIGTERM) {
            interrupted = true; loop.stop()
        }
        loop.schedule(after: 0) { step(0) }
        loop.run()
        if let failure {
            // A refusal part-way through: let go of what this gesture opened.
            if !previews.isEmpty { try? client.cancel() }
            throw failure
        }
        if interrupted && !finished {
            try? client.cancel()
            let state = try? client.state()
            if let state {
                report(
                    SelectorReply(index: state.selectedIndex, size: state.selectedSize),
                    console: console, previews: previews, cancelled: true)
            }
            throw CommandFailure(.interrupted, tr("interrupted: the preview was cancelled"))
        }
    }

    private func report(
        _ result: SelectorReply, console: Console, previews: [(x: Double, reply: SelectorReply)],
        cancelled: Bool = false
    ) {
        let phase = (release == nil || cancelled) ? "cancel" : "commit"
        if json {
            var members: [(String, JSON)] = [
                (
                    "previews",
                    .array(
                        previews.map {
                            .object([
                                ("x", .double($0.x)), ("index", .int($0.reply.index)),
                                ("size", .int($0.reply.size))
                            ])
                        })
                ),
                ("result", .string(phase))
            ]
            if let release, phase == "commit" { members.append(("x", .double(release))) }
            members += [("index", .int(result.index)), ("size", .int(result.size))]
            console.line(JSON.object(members).text)
        } else {
            console.line("\(phase) \(result.size)")
        }
    }
}
