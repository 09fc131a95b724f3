import DBusKit
import SizeSelectorContract
import SnapTexts
#if canImport(Glibc)
    import Glibc
#endif

/// `snapsizectl watch`: one line per change until interrupted.
struct WatchCommand: Command {
    static let name = "watch"
    static let abstract = tr(
        "Print every change (preview, commit, cancel) as it happens, until interrupted.")
    static let discussion =
        tr(
            """
            One line per change: the phase, the index, the size and the value text, e.g.
              preview 3 80 80 points
              commit 3 80 80 points
              cancel 2 60 60 points
            'commit' means the committed size changed (a release, a step, a set, from any client); 'cancel' means a
            preview ended and the committed size stayed (a cancel, a release at the committed size, a client
            that left, a timeout). With --json one object per line:
              {"phase":"preview","index":3,"size":80,"valueText":"80 points","selectedIndex":2,"selectedSize":60}
            A line on stderr says when watching has begun. Ctrl-C (or SIGTERM) ends it with status 0.
            """) + "\n"
        + tr(
            """
            In --json, "by" is the client whose call made the change, as far as the bus can tell, or null for a
            timeout, a client that left, or a change through the accessibility bus:
              {"name":":1.24","pid":4242,"command":"snapsizectl adjust"}
            """) + "\n"
        + tr(
            """
            A change made by an undo or a redo is printed as 'undo' or 'redo' instead of 'commit'; in --json,
            "kind" says what made the latest change of the committed size (step, set, commit, accessible, undo,
            redo or reload).
            """)
    static let arguments: [ArgumentSpec] = [
        .option("count", value: "n", help: tr("Stop after n changes.")),
        CommonArguments.json, CommonArguments.timeout
    ]

    let json: Bool
    let count: Int?
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        if let text = arguments["count"] {
            guard let value = Int(text), value >= 1 else {
                throw UsageError(tr("--count: '%s' is not a number of changes (1, 2, ...)", text))
            }
            count = value
        } else {
            count = nil
        }
        daemon = try CallOptions(arguments)
    }

    enum Phase: String { case preview, commit, cancel, undo, redo }

    /// Which phase an announcement means, given what was known before it; nil when neither the
    /// committed nor the shown size moved (a reload's new words, track or layout): no line then.
    static func phase(of change: SelectorChange) -> Phase? {
        if change.selectedIndex != nil || change.selectedSize != nil { return .commit }
        // An undo back to the size already committed (after a reload snapped it) moves nothing but the history.
        if change.lastChangeKind == ChangeKind.undo.rawValue { return .undo }
        if change.lastChangeKind == ChangeKind.redo.rawValue { return .redo }
        if change.previewing == false { return .cancel }
        if change.previewing == nil && change.shownIndex == nil && change.shownSize == nil { return nil }
        return .preview
    }

    static func line(_ phase: Phase, _ state: SelectorState, json: Bool) -> String {
        if json {
            return JSON.object([
                ("phase", .string(phase.rawValue)), ("index", .int(state.shownIndex)),
                ("size", .int(state.shownSize)),
                ("valueText", .string(state.valueText)),
                ("selectedIndex", .int(state.selectedIndex)), ("selectedSize", .int(state.selectedSize)),
                ("by", StatusCommand.client(state.changedBy)), ("kind", .string(state.lastChangeKind))
            ]).text
        }
        return "\(phase.rawValue) \(state.shownIndex) \(state.shownSize) \(state.valueText)"
    }

    /// How long a --json line waits for its client's process (see `run`): the daemon's own bound
    /// for learning it.
    static let namingWait = 0.5

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let loop = EventLoop()
        var state: SelectorState?
        var seen = 0
        var lost = false
        let console = context.console
        let json = self.json, count = self.count
        func emit(_ phase: Phase, _ state: SelectorState) {
            console.line(Self.line(phase, state, json: json))
            seen += 1
            if let count, seen >= count { loop.stop() }
        }
        // A change by a client new to the daemon (each `snapsizectl inc` is one) can be announced
        // before the bus has told the daemon which process that is (the daemon asks as the client
        // connects, and the answer usually comes first); the daemon then announces the process in a
        // ChangedBy of its own before that client has its reply. So a --json line naming a client by
        // its bus name alone waits for it, at most `namingWait`, and goes out at once, as it is,
        // before any other line.
        var waiting: (phase: Phase, state: SelectorState, timer: TimerID)?
        func printWaiting() {
            guard let line = waiting else { return }
            waiting = nil
            loop.cancel(line.timer)
            emit(line.phase, line.state)
        }
        client.attach(
            to: loop,
            onChange: { change in
                guard var current = state else { return }
                current.apply(change)
                state = current
                if let line = waiting, let by = change.changedBy,
                    by.uniqueName == line.state.changedBy.uniqueName
                {
                    var named = line.state
                    named.changedBy = by
                    waiting = (line.phase, named, line.timer)
                }
                guard var phase = Self.phase(of: change) else {
                    if let by = waiting?.state.changedBy, by.pid != 0 { printWaiting() }
                    return
                }
                printWaiting()
                // The kind is announced when it differs; two undos in a row: the state still says undo.
                if phase == .commit, let kind = ChangeKind(rawValue: current.lastChangeKind),
                    kind == .undo || kind == .redo
                {
                    phase = kind == .undo ? .undo : .redo
                }
                if json, current.changedBy.isKnown, current.changedBy.pid == 0 {
                    waiting = (phase, current, loop.schedule(after: Self.namingWait) { printWaiting() })
                    return
                }
                emit(phase, current)
            },
            onLost: {
                lost = true
                loop.stop()
            })
        // The match rule was sent before this call, and the bus answers in order: nothing is missed after it.
        state = try daemon.perform { () throws(MethodError) in try client.state() }
        loop.onSignal(SIGINT) { loop.stop() }
        loop.onSignal(SIGTERM) { loop.stop() }
        if let state {
            console.errorLine(tr("Watching %s, now %s; Ctrl-C to stop.", state.label, state.valueText))
        }
        loop.run()
        printWaiting()
        if lost { throw CommandFailure(.unavailable, tr("the session bus went away")) }
    }
}
