import DBusKit

/// What made a change of the committed size, as the history names it (`snapsizectl history`, the
/// `kind` of `GetHistory` and `LastChange`). Machine words: never translated.
public enum ChangeKind: String, CaseIterable, Sendable {
    /// Increment, Decrement, StepBy.
    case step
    /// SetIndex, SetSize.
    case set
    /// Commit (the end of a drag, or a tap).
    case commit
    /// A write or an action through the accessibility bus (a screen reader, pyatspi).
    case accessible
    case undo
    case redo
    /// A reload (SIGHUP) whose new list moved the committed size.
    case reload
}

/// One change of the committed size, `(txiissus)`: its sequence number, the wall-clock time in
/// microseconds since the epoch, the size before and after, the kind, and who made it (unique name,
/// pid, command, as `ChangedBy` has them; all empty for a reload).
public struct HistoryEntry: Equatable, Sendable {
    public var sequence: UInt64
    public var time: Int64
    public var from: Int
    public var to: Int
    /// Nil only in `none`.
    public var kind: ChangeKind?
    public var by: ClientIdentity

    public init(sequence: UInt64, time: Int64, from: Int, to: Int, kind: ChangeKind?, by: ClientIdentity)
    {
        self.sequence = sequence
        self.time = time
        self.from = from
        self.to = to
        self.kind = kind
        self.by = by
    }

    /// `LastChange` before the first change the history holds: sequence 0, kind "".
    public static let none = HistoryEntry(sequence: 0, time: 0, from: 0, to: 0, kind: nil, by: .unknown)

    public static let signature = "(txiissus)"

    /// `(txiissus)`.
    public var value: DBusValue {
        .structure([
            .uint64(sequence), .int64(time), .int32(Int32(truncatingIfNeeded: from)),
            .int32(Int32(truncatingIfNeeded: to)),
            .string(kind?.rawValue ?? ""), .string(by.uniqueName), .uint32(by.pid), .string(by.command)
        ])
    }

    /// Reads `(txiissus)`; nil for anything else (a kind this client does not know, too).
    public init?(_ value: DBusValue) {
        guard case .structure(let m) = value, m.count == 8, let sequence = m[0].asUInt64,
            let time = m[1].asInt64,
            let from = m[2].asInt32, let to = m[3].asInt32, let kind = m[4].asString,
            let name = m[5].asString,
            let pid = m[6].asUInt32, let command = m[7].asString
        else { return nil }
        let known = ChangeKind(rawValue: kind)
        guard known != nil || (kind.isEmpty && sequence == 0) else { return nil }
        self.init(
            sequence: sequence, time: time, from: Int(from), to: Int(to), kind: known,
            by: ClientIdentity(uniqueName: name, pid: pid, command: command))
    }

    /// Reads a `GetHistory` reply (`a(txiissus)`).
    public static func list(_ body: [DBusValue]) throws(MethodError) -> [HistoryEntry] {
        guard body.count == 1, case .array(_, let elements) = body[0] else {
            throw unexpectedReply(to: SelectorMethod.getHistory.name, body)
        }
        var entries: [HistoryEntry] = []
        for element in elements {
            guard let entry = HistoryEntry(element) else {
                throw unexpectedReply(to: SelectorMethod.getHistory.name, body)
            }
            entries.append(entry)
        }
        return entries
    }
}
