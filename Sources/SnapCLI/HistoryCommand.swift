import DBusKit
import SizeSelectorContract
import SnapTexts
internal import CPOSIX
#if canImport(Glibc)
    import Glibc
#endif

/// `snapsizectl history`: who changed the committed size, and when.
struct HistoryCommand: Command {
    static let name = "history"
    static let abstract = tr(
        "Print the recent changes of the committed size: when, from what to what, how and by whom.")
    static let discussion = tr(
        """
        By default the newest changes that fit the terminal, at most 20, newest last, one line each: the
        local time (with the date when it was not today), the size before and after, the kind (a step, a
        size set, a commit of a drag, a change through the screen reader, an undo, a redo, a reload) and
        the client, e.g.
          14:03:27  60 → 80  step  snapsizectl inc (pid 4242)
        --limit N prints the newest N, --all every change snapsized keeps (the newest 100, also across
        restarts). With --json one object per line, its words the same in every language:
          {"seq":7,"time":1764597807000000,"from":60,"to":80,"kind":"step","by":{"name":":1.24","pid":4242,"command":"snapsizectl inc"}}
        where kind is step, set, commit, accessible, undo, redo or reload, time is in microseconds since
        the epoch and by is null for a reload.
        """)
    static let arguments: [ArgumentSpec] = [
        .option("limit", value: "n", help: tr("Print only the newest n changes.")),
        .flag("all", help: tr("Print every change snapsized keeps.")),
        CommonArguments.json, CommonArguments.timeout
    ]

    /// The most lines `history` prints unless asked for more: "what just happened?" in one screen.
    static let screenful = 20

    let json: Bool
    /// nil: as many as fit the terminal (at most `screenful`).
    let limit: Int?
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        if arguments.has("all") {
            guard arguments["limit"] == nil else {
                throw UsageError(tr("--limit and --all exclude each other"))
            }
            limit = Int(UInt32.max)
        } else if let text = arguments["limit"] {
            guard let value = Int(text), value >= 0, value <= Int(UInt32.max) else {
                throw UsageError(tr("--limit: '%s' is not a number of changes (0, 1, 2, ...)", text))
            }
            limit = value
        } else {
            limit = nil
        }
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let limit = self.limit ?? Self.fitting(context.console)
        let entries = try daemon.perform { () throws(MethodError) -> [HistoryEntry] in
            try client.history(limit: limit)
        }
        let today = Self.day(of: Int64(time(nil)) * 1_000_000)
        for entry in entries {
            context.console.line(json ? Self.json(entry) : Self.plain(entry, today: today))
        }
    }

    /// How many lines fit: the terminal's height less the prompt's line, at most `screenful`; a
    /// `screenful` when the output is no terminal (or its size is unknown).
    static func fitting(_ console: Console) -> Int {
        guard console.isTerminal else { return screenful }
        var size = winsize()
        guard cposix_window_size(1, &size) == 0, size.ws_row > 1 else { return screenful }
        return min(screenful, Int(size.ws_row) - 1)
    }

    /// For the person: every word in their language, the kind too (`--json` keeps the machine words).
    static func plain(_ entry: HistoryEntry, today: String) -> String {
        let day = Self.day(of: entry.time)
        let when = (day == today ? "" : day + " ") + clock(of: entry.time)
        let who = entry.by.isKnown ? "  " + person(entry.by) : ""
        return "\(when)  \(entry.from) → \(entry.to)  \(entry.kind.map(word) ?? "")\(who)"
    }

    /// A client as the person reads it: its command and pid (the bus name when it has no command).
    static func person(_ client: ClientIdentity) -> String {
        let name = client.command.isEmpty ? client.uniqueName : client.command
        // TRANSLATORS: who made a change in `history`: a command and its process id, "snapsizectl inc (pid 4242)".
        return client.pid == 0 ? name : tr("%1$s (pid %2$s)", name, client.pid)
    }

    /// The kind of a change in the person's language.
    static func word(_ kind: ChangeKind) -> String {
        switch kind {
        // TRANSLATORS: kinds of change in `history`, one word each: inc/dec/step...
        case .step: tr("step")
        // TRANSLATORS: a size set with `set` or SetSize.
        case .set: tr("set")
        // TRANSLATORS: the end of a drag (the preview committed).
        case .commit: tr("commit")
        // TRANSLATORS: a change made through the accessibility bus (a screen reader).
        case .accessible: tr("accessible")
        case .undo: tr("undo")
        case .redo: tr("redo")
        // TRANSLATORS: the config was reloaded and the size moved with it.
        case .reload: tr("reload")
        }
    }

    static func json(_ entry: HistoryEntry) -> String {
        JSON.object([
            ("seq", .unsigned(entry.sequence)), ("time", .int(Int(entry.time))),
            ("from", .int(entry.from)),
            ("to", .int(entry.to)), ("kind", .string(entry.kind?.rawValue ?? "")),
            ("by", StatusCommand.client(entry.by))
        ]).text
    }

    private static func local(_ microseconds: Int64) -> tm {
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }

    static func day(of microseconds: Int64) -> String {
        let t = local(microseconds)
        return "\(t.tm_year + 1900)-\(twoDigits(t.tm_mon + 1))-\(twoDigits(t.tm_mday))"
    }

    static func clock(of microseconds: Int64) -> String {
        let t = local(microseconds)
        return "\(twoDigits(t.tm_hour)):\(twoDigits(t.tm_min)):\(twoDigits(t.tm_sec))"
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
}
