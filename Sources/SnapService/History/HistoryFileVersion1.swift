import SizeSelectorContract

/// The history file's first version, text, read so that a history written by an earlier snapsize
/// is kept (the next write replaces it with version 2, `HistoryFile`). One line per record:
///
///     snapsize-history 1
///     S <last sequence>                 the snapshot: where the numbering goes on
///     U <from> <to>                     the undo stack, bottom first
///     R <from> <to>                     the redo stack, bottom first
///     L <entry>                         the entries, oldest first
///     E <entry>                         appended since: each replayed through `History.apply`
///
/// where `<entry>` is `<sequence> <µs> <from> <to> <kind> <pid> <unique name, or -> <command>` (the
/// command is the rest of the line).
enum HistoryFileVersion1 {
    static let header = Array("snapsize-history 1\n".utf8)

    /// The history in `text`; nil when any line is not one of the format's. A last line without its
    /// newline (a write cut short) is left out.
    static func parse(_ text: String) -> History? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "snapsize-history 1" else { return nil }
        lines.removeFirst()
        if lines.last?.isEmpty == true {
            lines.removeLast()
        } else if !lines.isEmpty {
            lines.removeLast()
        }
        var sequence: UInt64 = 0
        var undoable: [History.Move] = [], redoable: [History.Move] = [], entries: [HistoryEntry] = []
        var replayed: [HistoryEntry] = []
        for line in lines {
            let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2 else { return nil }
            let rest = fields[1]
            switch fields[0] {
            case "S":
                guard let value = UInt64(rest), replayed.isEmpty else { return nil }
                sequence = value
            case "U", "R":
                let numbers = rest.split(separator: " ").compactMap { Int($0) }
                guard numbers.count == 2, replayed.isEmpty else { return nil }
                (fields[0] == "U" ? { undoable.append($0) } : { redoable.append($0) })(
                    History.Move(from: numbers[0], to: numbers[1]))
            case "L":
                guard let entry = entry(rest), replayed.isEmpty else { return nil }
                entries.append(entry)
            case "E":
                guard let entry = entry(rest) else { return nil }
                replayed.append(entry)
            default:
                return nil
            }
        }
        var history = History()
        history.restore(entries: entries, undoable: undoable, redoable: redoable, lastSequence: sequence)
        for entry in replayed {
            guard entry.sequence > history.lastSequence else { return nil }
            history.apply(history.record(of: entry))
        }
        return history
    }

    private static func entry(_ text: Substring) -> HistoryEntry? {
        let fields = text.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: false)
        guard fields.count >= 7, let sequence = UInt64(fields[0]), let time = Int64(fields[1]),
            let from = Int(fields[2]),
            let to = Int(fields[3]), let kind = ChangeKind(rawValue: String(fields[4])),
            let pid = UInt32(fields[5])
        else { return nil }
        let name = fields[6] == "-" ? "" : String(fields[6])
        let command = fields.count > 7 ? String(fields[7]) : ""
        return HistoryEntry(
            sequence: sequence, time: time, from: from, to: to, kind: kind,
            by: ClientIdentity(fromFile: name, pid: pid, command: command))
    }
}
