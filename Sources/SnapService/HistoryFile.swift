import Glibc
import SizeSelectorContract
import SystemCalls

/// Keeps the history (`History`: its entries and the undo position) beside the state file, so that
/// "who changed it" and Undo survive a restart. The state file stays the one durable truth: this
/// file is written after the reply (`HistoryWriter`), never flushed on the commit path, and a
/// crash may lose its newest lines, never an acknowledged size.
///
/// One text line per record, machine words only:
///
///     snapsize-history 1
///     S <last sequence>                 the snapshot: where the numbering goes on
///     U <from> <to>                     the undo stack, bottom first
///     R <from> <to>                     the redo stack, bottom first
///     L <entry>                         the entries, oldest first
///     E <entry>                         appended since: each replayed through `History.apply`
///
/// where `<entry>` is `<sequence> <µs> <from> <to> <kind> <pid> <unique name, or -> <command>` (the
/// command is the rest of the line, and has no control characters: `ClientDirectory`). A change
/// appends one line; after `appendedLines` of them the file is rewritten as a snapshot
/// (temporary file, flushed, renamed), so it stays below `maximumBytes`. Mode 0600, never reached
/// through a symbolic link. A file that cannot be read is kept aside as a bad state file is.
public final class HistoryFile {
    public let path: String
    /// How many lines are appended before the file is rewritten as a snapshot: the snapshot costs a
    /// few hundred thousand instructions, so it comes once every few hundred changes (make profile).
    static let appendedLines = 3 * History.capacity
    /// Far above what a full snapshot and its appended lines take (about 600 lines of at most a few
    /// hundred bytes; some 40 KiB in practice), and what load refuses beyond.
    static let maximumBytes = 512 * 1024
    static let header = "snapsize-history 1"
    private var fd: Int32 = -1
    /// The lines of one write, kept from write to write.
    private var buffer: [UInt8] = []
    /// The last client's part of a line, kept from line to line: a run of changes is mostly one client's.
    private var who = Who()
    private var appended = 0
    /// The newest sequence number in the file.
    private(set) var written: UInt64 = 0
    /// The history's `revision` the file has.
    private var writtenRevision = 0
    /// A failure is logged once, until a write succeeds again.
    private var failing = false

    public init(path: String) {
        self.path = path
    }

    deinit { if fd >= 0 { _ = POSIX.close(fd) } }

    /// Beside the state file: `history` in its folder when it is called `state` (the default
    /// `$XDG_STATE_HOME/snapsize/history`), else `<state file>.history`.
    public static func path(besideStateFile state: String) -> String {
        let folder = StateStore.folder(of: state)
        return state.hasSuffix("/state") || state == "state" ? folder + "/history" : state + ".history"
    }

    /// The history the file holds (empty when there is none), and a sentence for the log when the
    /// file could not be used (it is then kept aside and the history starts empty).
    public func load() -> (history: History, problem: String?) {
        switch SmallFile.read(path, maximumBytes: Self.maximumBytes, followLinks: false) {
        case .missing:
            return (History(), nil)
        case .unusable(let reason):
            return (History(), keepAside(reason))
        case .text(let text):
            guard let (history, appendedLines) = Self.parse(text) else {
                return (History(), keepAside("it is not a history this snapsize can read"))
            }
            written = history.lastSequence
            appended = appendedLines
            return (history, nil)
        }
    }

    private func keepAside(_ reason: String) -> String {
        let kept = StateStore.keepAside(path).map { "; it was kept as \($0)" } ?? "; moving it aside failed: \(describeErrno())"
        return "the history file \(path) could not be used: \(reason)\(kept); the history starts empty"
    }

    /// Writes what `history` holds beyond what the file has: appended lines, or a new snapshot
    /// when enough are appended (or the history went back, a group's failed save). Returns a
    /// sentence for the log the first time writing fails (nil otherwise): the change stands.
    public func write(_ history: History) -> String? {
        let problem: String?
        if history.lastSequence < written || history.revision != writtenRevision || appended + Int(history.lastSequence - written) >= Self.appendedLines || fd < 0 {
            problem = rewrite(history)
        } else {
            buffer.removeAll(keepingCapacity: true)
            var count = 0
            history.forEachEntry(after: written) { entry in
                Self.append("E", entry, to: &buffer, who: &who)
                count += 1
            }
            problem = buffer.withUnsafeBytes { POSIX.writeAll(fd, $0) }.map { describeErrno($0) }
            if problem == nil { appended += count }
        }
        if let problem {
            if fd >= 0 { _ = POSIX.close(fd); fd = -1 }
            defer { failing = true }
            return failing ? nil : "cannot write the history file \(path) (\(problem)); the history is kept in memory only"
        }
        written = history.lastSequence
        writtenRevision = history.revision
        failing = false
        return nil
    }

    /// The whole history as a snapshot, in a temporary file flushed and renamed over the file.
    private func rewrite(_ history: History) -> String? {
        if fd >= 0 { _ = POSIX.close(fd); fd = -1 }
        let temporary = "\(path).tmp-\(getpid())"
        var made = POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if made < 0 {
            if let problem = StateStore.makeFolders(StateStore.folder(of: path)) { return problem }
            made = POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard made >= 0 else { return "cannot create \(temporary): \(describeErrno())" }
        let bytes = Self.snapshot(history, who: &who)
        var problem = bytes.withUnsafeBytes { POSIX.writeAll(made, $0) }.map { "cannot write \(temporary): \(describeErrno($0))" }
        if problem == nil, POSIX.fchmod(made, 0o600) != 0 { problem = "cannot set the mode of \(temporary): \(describeErrno())" }
        // Once per `capacity` changes, after the reply: a rename of a file not yet on disk could
        // leave an empty one after a power cut.
        if problem == nil, POSIX.fsync(made) != 0 { problem = "cannot flush \(temporary): \(describeErrno())" }
        if problem == nil, POSIX.rename(temporary, path) != 0 { problem = "cannot rename \(temporary): \(describeErrno())" }
        if let problem {
            _ = POSIX.close(made)
            _ = POSIX.unlink(temporary)
            return problem
        }
        _ = POSIX.close(made)
        fd = POSIX.open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return "cannot open \(path): \(describeErrno())" }
        appended = 0
        return nil
    }

    // MARK: The format

    static func snapshot(_ history: History) -> [UInt8] {
        var who = Who()
        return snapshot(history, who: &who)
    }

    static func snapshot(_ history: History, who: inout Who) -> [UInt8] {
        var bytes = Array((header + "\nS ").utf8)
        bytes.reserveCapacity(64 * (3 * History.capacity + 8))
        appendNumber(history.lastSequence, to: &bytes)
        bytes.append(0x0A)
        for (tag, moves) in [(UInt8(ascii: "U"), history.undoable), (UInt8(ascii: "R"), history.redoable)] {
            for move in moves { append(tag, move, to: &bytes) }
        }
        history.forEachEntry(after: 0) { entry in append("L", entry, to: &bytes, who: &who) }
        return bytes
    }

    /// A client's part of a line, ` <pid> <unique name, or -> <command>\n`, made once per client.
    struct Who {
        private var name = "", pid: UInt32 = 0, command = ""
        private var bytes: [UInt8] = []

        mutating func append(_ identity: ClientIdentity, to line: inout [UInt8]) {
            if bytes.isEmpty || identity.pid != pid || identity.uniqueName != name || identity.command != command { make(identity) }
            line.append(contentsOf: bytes)
        }

        private mutating func make(_ identity: ClientIdentity) {
            var made: [UInt8] = [UInt8(ascii: " ")]
            appendNumber(UInt64(identity.pid), to: &made)
            made.append(UInt8(ascii: " "))
            if identity.uniqueName.isEmpty { made.append(UInt8(ascii: "-")) } else { made += identity.uniqueName.utf8 }
            made.append(UInt8(ascii: " "))
            made += identity.command.utf8
            made.append(UInt8(ascii: "\n"))
            (name, pid, command) = (identity.uniqueName, identity.pid, identity.command)
            bytes = made
        }
    }

    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    private static let kindWords: [[UInt8]] = ChangeKind.allCases.map { Array($0.rawValue.utf8) }

    /// Bytes written backwards into a scratch buffer on the stack, each number's digits from the
    /// right, two at a time: what a line is made of, but the client's part (`Who`).
    struct Backwards {
        let scratch: UnsafeMutableBufferPointer<UInt8>
        var at: Int

        init(_ scratch: UnsafeMutableBufferPointer<UInt8>) {
            self.scratch = scratch
            at = scratch.count
        }

        var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: scratch[at...]) }

        mutating func put(_ byte: UInt8) { at -= 1; scratch[at] = byte }

        mutating func put(_ word: [UInt8]) {
            at -= word.count
            for (offset, byte) in word.enumerated() { scratch[at + offset] = byte }
        }

        mutating func put(_ value: UInt64) {
            var rest = value
            while rest >= 100 {
                let next = rest / 100
                putPair(Int(truncatingIfNeeded: rest &- next &* 100))
                rest = next
            }
            if rest >= 10 { putPair(Int(truncatingIfNeeded: rest)) } else { put(UInt8(truncatingIfNeeded: rest) &+ UInt8(ascii: "0")) }
        }

        mutating func put(_ value: Int64) {
            put(value.magnitude)
            if value < 0 { put(UInt8(ascii: "-")) }
        }

        private mutating func putPair(_ pair: Int) {
            at -= 2
            scratch[at] = digitPairs.utf8Start[pair &* 2]
            scratch[at + 1] = digitPairs.utf8Start[pair &* 2 + 1]
        }
    }

    /// One line, `<tag> <entry>\n`: it runs after every change, so all but the client's part is
    /// written `Backwards` on the stack and the client's part is made once per client (`Who`): the
    /// line is two appends (string interpolation costs ten times as much).
    static func append(_ tag: Unicode.Scalar, _ entry: HistoryEntry, to bytes: inout [UInt8], who: inout Who) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { scratch in
            var line = Backwards(scratch)
            if let kind = entry.kind { line.put(kindWords[kindIndex(kind)]) } else { line.put(UInt8(ascii: "-")) }
            line.put(UInt8(ascii: " "))
            line.put(Int64(entry.to))
            line.put(UInt8(ascii: " "))
            line.put(Int64(entry.from))
            line.put(UInt8(ascii: " "))
            line.put(entry.time)
            line.put(UInt8(ascii: " "))
            line.put(entry.sequence)
            line.put(UInt8(ascii: " "))
            line.put(UInt8(ascii: tag))
            bytes.append(contentsOf: line.written)
        }
        who.append(entry.by, to: &bytes)
    }

    /// `<tag> <from> <to>\n`.
    private static func append(_ tag: UInt8, _ move: History.Move, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { scratch in
            var line = Backwards(scratch)
            line.put(UInt8(ascii: "\n"))
            line.put(Int64(move.to))
            line.put(UInt8(ascii: " "))
            line.put(Int64(move.from))
            line.put(UInt8(ascii: " "))
            line.put(tag)
            bytes.append(contentsOf: line.written)
        }
    }

    private static func kindIndex(_ kind: ChangeKind) -> Int {
        switch kind {
        case .step: 0
        case .set: 1
        case .commit: 2
        case .accessible: 3
        case .undo: 4
        case .redo: 5
        case .reload: 6
        }
    }

    /// The entry's line as text, without the tag (for tests).
    static func line(_ entry: HistoryEntry) -> String {
        var bytes: [UInt8] = [], who = Who()
        append("L", entry, to: &bytes, who: &who)
        return String(decoding: bytes.dropFirst(2).dropLast(), as: UTF8.self)
    }

    private static func appendNumber(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { scratch in
            var digits = Backwards(scratch)
            digits.put(value)
            bytes.append(contentsOf: digits.written)
        }
    }

    /// The history in `text` and how many lines were appended since its snapshot; nil when any
    /// line is not one of the format's. A last line without its newline (a write cut short) is left out.
    static func parse(_ text: String) -> (History, Int)? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first.map(String.init) == header else { return nil }
        lines.removeFirst()
        if lines.last?.isEmpty == true { lines.removeLast() } else if !lines.isEmpty { lines.removeLast() }
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
                (fields[0] == "U" ? { undoable.append($0) } : { redoable.append($0) })(History.Move(from: numbers[0], to: numbers[1]))
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
        var history = History(entries: entries, undoable: undoable, redoable: redoable, lastSequence: sequence)
        for entry in replayed {
            guard entry.sequence > history.lastSequence else { return nil }
            history.apply(entry)
        }
        return (history, replayed.count)
    }

    private static func entry(_ text: Substring) -> HistoryEntry? {
        let fields = text.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: false)
        guard fields.count >= 7, let sequence = UInt64(fields[0]), let time = Int64(fields[1]), let from = Int(fields[2]),
              let to = Int(fields[3]), let kind = ChangeKind(rawValue: String(fields[4])), let pid = UInt32(fields[5])
        else { return nil }
        let name = fields[6] == "-" ? "" : String(fields[6])
        let command = fields.count > 7 ? String(fields[7]) : ""
        return HistoryEntry(sequence: sequence, time: time, from: from, to: to, kind: kind,
                            by: ClientIdentity(uniqueName: name, pid: pid, command: command))
    }
}
