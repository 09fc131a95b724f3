import DBusKit
import SizeSelectorContract
import SnapTexts
#if canImport(Glibc)
import Glibc
#endif

/// `snapsizectl history`: who changed the committed size, and when.
struct HistoryCommand: Command {
    static let name = "history"
    static let abstract = tr("Print the recent changes of the committed size: when, from what to what, how and by whom.")
    static let discussion = tr("""
        Newest last, one line each: the local time (with the date when it was not today), the size before and
        after, the kind (step, set, commit, accessible, undo, redo, reload) and the client, e.g.
          14:03:27  60 → 80  step  snapsizectl inc (pid 4242)
        snapsized keeps the newest 100 changes, also across restarts. With --json one object per line:
          {"seq":7,"time":1764597807000000,"from":60,"to":80,"kind":"step","by":{"name":":1.24","pid":4242,"command":"snapsizectl inc"}}
        where time is in microseconds since the epoch and by is null for a reload.
        """)
    static let arguments: [ArgumentSpec] = [
        .option("limit", value: "n", help: tr("Print only the newest n changes.")),
        CommonArguments.json, CommonArguments.timeout,
    ]

    let json: Bool
    let limit: Int
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        if let text = arguments["limit"] {
            guard let value = Int(text), value >= 0, value <= Int(UInt32.max) else {
                throw UsageError(tr("--limit: '%s' is not a number of changes (0, 1, 2, ...)", text))
            }
            limit = value
        } else {
            limit = 100
        }
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let limit = self.limit
        let entries = try daemon.perform { () throws(MethodError) -> [HistoryEntry] in try client.history(limit: limit) }
        let today = Self.day(of: Int64(time(nil)) * 1_000_000)
        for entry in entries { context.console.line(json ? Self.json(entry) : Self.plain(entry, today: today)) }
    }

    /// Machine words and numbers only, whatever the language.
    static func plain(_ entry: HistoryEntry, today: String) -> String {
        let day = Self.day(of: entry.time)
        let when = (day == today ? "" : day + " ") + clock(of: entry.time)
        let who = entry.by.isKnown ? "  " + entry.by.plainName : ""
        return "\(when)  \(entry.from) → \(entry.to)  \(entry.kind?.rawValue ?? "")\(who)"
    }

    static func json(_ entry: HistoryEntry) -> String {
        JSON.object([("seq", .unsigned(entry.sequence)), ("time", .int(Int(entry.time))), ("from", .int(entry.from)),
                     ("to", .int(entry.to)), ("kind", .string(entry.kind?.rawValue ?? "")),
                     ("by", StatusCommand.client(entry.by))]).text
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
