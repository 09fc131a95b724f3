import Glibc
import SizeSelectorContract
import SystemCalls

/// Keeps the history (`History`: its entries and the undo position) beside the state file, so that
/// "who changed it" and Undo survive a restart. The state file stays the one durable truth: this
/// file is written after the reply (`HistoryWriter`), never flushed on the commit path, and a
/// crash may lose its newest records, never an acknowledged size.
///
/// After its first line, `snapsize-history 2\n`, records of fixed-size fields, numbers
/// little-endian, each starting with its tag:
///
///     S  tag, 7 zero bytes, last sequence (u64)                 16 bytes: the snapshot starts,
///                                                                          where the numbering goes on
///     U  tag, 7 zero bytes, from (i64), to (i64)                24 bytes: the undo stack, bottom first
///     R  the same                                                          the redo stack, bottom first
///     W  tag, 0, slot (u16), pid (u32), name and command        16 bytes, then the name's and the
///        lengths (u32 each)                                                 command's UTF-8 bytes
///     L  tag, kind (u8: `kindByte`), slot                        40 bytes: the snapshot's entries,
///        (u16), 4 zero bytes, sequence (u64), µs (i64),                    oldest first
///        from (i64), to (i64)
///     E  the same                                                          appended since: each replayed
///                                                                          through `History.apply`
///
/// An entry names its client by a slot that a `W` defines before it (and may define again: a
/// client that became known, or a slot no entry kept names any more taken by another), as
/// `History.Clients` holds them. So a change appends 40 bytes, copied from the record as it is, and
/// a new client once its `W`. After `appendedRecords` entries, or when the file would grow beyond
/// `maximumBytes`, it is rewritten as a snapshot (temporary file, flushed, renamed). Mode 0600,
/// never reached through a symbolic link. Before each write the path must still name the open file
/// as it was written (`SmallFile.replacement`, as the state file's commits check it): when it was
/// moved, removed, cut short or replaced, the whole history is written afresh at the path
/// (its folder made again; a folder, FIFO or link in its place kept aside), and the log says so once. A file that cannot be read is kept aside as a bad state
/// file is; a file of version 1 (text, `HistoryFileVersion1`) is read, and rewritten as version 2
/// with the first change.
public final class HistoryFile {
    public let path: String
    /// How many entries are appended before the file is rewritten as a snapshot.
    static let appendedRecords = 3 * History.capacity
    /// Far above what a full snapshot and its appended records take (a client's command line is
    /// bounded too, `ClientDirectory`), and what load refuses beyond.
    static let maximumBytes = 512 * 1024
    static let header = Array("snapsize-history 2\n".utf8)
    private var fd: Int32 = -1
    /// The records of one write, kept from write to write.
    private var buffer: [UInt8] = []
    private var appended = 0
    private var bytes = 0
    /// The newest sequence number in the file.
    private(set) var written: UInt64 = 0
    /// The generation of each client slot the file has (0: none; `History.Clients.generations`).
    private var writtenGenerations: [Int] = []
    private var writtenRevision = 0
    /// A failure is logged once, until a write succeeds again.
    private var failing = false
    /// Where the last rewrite moved what was in the file's place (a folder, a FIFO, a link), if it did.
    private var keptAside: String?

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
        switch SmallFile.load(path, maximumBytes: Self.maximumBytes, followLinks: false) {
        case .missing:
            return (History(), nil)
        case .unusable(let reason):
            return (History(), keepAside(reason))
        case .bytes(let bytes):
            guard let history = Self.parse(bytes) else {
                return (History(), keepAside("it is not a history this snapsize can read"))
            }
            // The first write makes a snapshot (nothing is open yet), in this version.
            written = history.lastSequence
            return (history, nil)
        }
    }

    private func keepAside(_ reason: String) -> String {
        let kept =
            StateStore.keepAside(path).map { "; it was kept as \($0)" }
            ?? "; moving it aside failed: \(describeErrno())"
        return "the history file \(path) could not be used: \(reason)\(kept); the history starts empty"
    }

    /// Writes what `history` holds beyond what the file has: appended records, or a new snapshot
    /// when enough are appended (or the history went back, a group's failed save). Returns a
    /// sentence for the log the first time writing fails, and when the file was found replaced (nil
    /// otherwise): the change stands.
    public func write(_ history: History) -> String? {
        var problem: String?
        // Checked before every write (one per `HistoryWriter.delay` at most): appended records
        // belong in the file the path names, whole, or the next start would not find them.
        let replaced = fd >= 0 ? SmallFile.replacement(ofOpen: fd, at: path, size: bytes) : nil
        if replaced != nil { _ = POSIX.close(fd); fd = -1 }
        keptAside = nil
        if history.lastSequence < written || fd < 0
            || appended + Int(history.lastSequence - written) >= Self.appendedRecords
        {
            problem = rewrite(history)
        } else {
            buffer.removeAll(keepingCapacity: true)
            var count = 0
            let clients = history.clients
            if clients.revision != writtenRevision {
                for slot in 0..<clients.count where clients.isUsed(slot) { appendClient(slot, clients) }
            }
            history.forEachRecord(after: written) { record in
                appendClient(record.client, clients)
                Self.append(UInt8(ascii: "E"), record, to: &buffer)
                count += 1
            }
            if bytes + buffer.count > Self.maximumBytes {
                problem = rewrite(history)
            } else {
                problem = buffer.withUnsafeBytes { POSIX.writeAll(fd, $0) }.map { describeErrno($0) }
                if problem == nil {
                    appended += count
                    bytes += buffer.count
                }
            }
        }
        if problem != nil, fd >= 0 { _ = POSIX.close(fd); fd = -1 }
        defer { failing = problem != nil }
        if problem == nil {
            written = history.lastSequence
            writtenRevision = history.clients.revision
        }
        // (A folder, FIFO or link found in its place when no file was open is said the same way.)
        if let replaced = replaced
            ?? keptAside.map({ _ in "something that is not a file is in its place" })
        {
            // Said once: the new file is the one checked from now on (or, failing, none is open).
            let kept = keptAside.map { "; what was in its place is kept as \($0)" } ?? ""
            let outcome =
                problem.map {
                    "; writing a new one there failed (\($0)); the history is kept in memory only"
                }
                ?? "; the whole history is written to a new one there"
            return
                "the history file \(path) is no longer the file the daemon wrote (\(replaced))\(kept)\(outcome)"
        }
        if let problem {
            return failing
                ? nil
                : "cannot write the history file \(path) (\(problem)); the history is kept in memory only"
        }
        return nil
    }

    /// A `W` for `slot` unless the file has the slot as it is.
    private func appendClient(_ slot: Int, _ clients: Clients) {
        let generation = clients.generations[slot]
        if slot < writtenGenerations.count && writtenGenerations[slot] == generation { return }
        while writtenGenerations.count <= slot { writtenGenerations.append(0) }
        writtenGenerations[slot] = generation
        Self.append(slot: slot, clients[slot], to: &buffer)
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
        let snapshot = Self.snapshot(history)
        var problem = snapshot.withUnsafeBytes { POSIX.writeAll(made, $0) }.map {
            "cannot write \(temporary): \(describeErrno($0))"
        }
        if problem == nil, POSIX.fchmod(made, 0o600) != 0 {
            problem = "cannot set the mode of \(temporary): \(describeErrno())"
        }
        // Once per `appendedRecords` changes, after the reply: a rename of a file not yet on disk
        // could leave an empty one after a power cut.
        if problem == nil, POSIX.fsync(made) != 0 {
            problem = "cannot flush \(temporary): \(describeErrno())"
        }
        // Never renamed over what is not a file (a folder refuses it; a link or a FIFO someone put
        // there is theirs): kept aside, as load keeps it.
        var info = stat()
        if problem == nil, POSIX.status(path, &info, followLinks: false) == 0,
            info.st_mode & S_IFMT != S_IFREG
        {
            keptAside = StateStore.keepAside(path)
            if keptAside == nil {
                problem = "cannot move aside what is in its place: \(describeErrno())"
            }
        }
        if problem == nil, POSIX.rename(temporary, path) != 0 {
            problem = "cannot rename \(temporary): \(describeErrno())"
        }
        if let problem {
            _ = POSIX.close(made)
            _ = POSIX.unlink(temporary)
            writtenGenerations = []
            return problem
        }
        _ = POSIX.close(made)
        fd = POSIX.open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return "cannot open \(path): \(describeErrno())" }
        let clients = history.clients
        writtenGenerations = (0..<clients.count).map { clients.isUsed($0) ? clients.generations[$0] : 0 }
        appended = 0
        bytes = snapshot.count
        return nil
    }

    // MARK: The format

    static func snapshot(_ history: History) -> [UInt8] {
        var bytes = header
        bytes.reserveCapacity(
            header.count + 16 + 48 * History.capacity + 40 * History.capacity + 64
                * history.clients.count)
        withRecord(16) { record in
            record.storeBytes(of: UInt64(UInt8(ascii: "S")), toByteOffset: 0, as: UInt64.self)
            record.storeBytes(of: history.lastSequence.littleEndian, toByteOffset: 8, as: UInt64.self)
            bytes.append(contentsOf: record)
        }
        for (tag, moves) in [
            (UInt8(ascii: "U"), history.undoable), (UInt8(ascii: "R"), history.redoable)
        ] {
            for move in moves {
                withRecord(24) { record in
                    record.storeBytes(of: UInt64(tag), toByteOffset: 0, as: UInt64.self)
                    record.storeBytes(of: Int64(move.from).littleEndian, toByteOffset: 8, as: Int64.self)
                    record.storeBytes(of: Int64(move.to).littleEndian, toByteOffset: 16, as: Int64.self)
                    bytes.append(contentsOf: record)
                }
            }
        }
        let clients = history.clients
        for slot in 0..<clients.count where clients.isUsed(slot) {
            append(slot: slot, clients[slot], to: &bytes)
        }
        history.forEachRecord(after: 0) { append(UInt8(ascii: "L"), $0, to: &bytes) }
        return bytes
    }

    private static func withRecord(_ size: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { body($0) }
    }

    /// An `L` or `E`: the record's numbers as they are (on a little-endian machine, `littleEndian` is no work).
    static func append(_ tag: UInt8, _ record: History.Record, to bytes: inout [UInt8]) {
        // Room made by appending an array (a copy), then stored into: appending a raw buffer goes byte by byte.
        let at = bytes.count
        bytes.append(contentsOf: emptyRecord)
        bytes.withUnsafeMutableBytes { raw in
            let head =
                UInt64(tag) | UInt64(kindByte(record.kind)) << 8 | UInt64(
                    UInt16(truncatingIfNeeded: record.client)) << 16
            raw.storeBytes(of: head.littleEndian, toByteOffset: at, as: UInt64.self)
            raw.storeBytes(of: record.sequence.littleEndian, toByteOffset: at + 8, as: UInt64.self)
            raw.storeBytes(of: record.time.littleEndian, toByteOffset: at + 16, as: Int64.self)
            raw.storeBytes(of: Int64(record.from).littleEndian, toByteOffset: at + 24, as: Int64.self)
            raw.storeBytes(of: Int64(record.to).littleEndian, toByteOffset: at + 32, as: Int64.self)
        }
    }

    private static let emptyRecord = [UInt8](repeating: 0, count: 40)

    /// A `W`: `slot` names `identity`.
    static func append(slot: Int, _ identity: ClientIdentity, to bytes: inout [UInt8]) {
        var name = identity.uniqueName, command = identity.command
        withRecord(16) { raw in
            let head =
                UInt64(UInt8(ascii: "W")) | UInt64(UInt16(truncatingIfNeeded: slot)) << 16 | UInt64(
                    identity.pid) << 32
            raw.storeBytes(of: head.littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(
                of: UInt32(truncatingIfNeeded: name.utf8.count).littleEndian, toByteOffset: 8,
                as: UInt32.self)
            raw.storeBytes(
                of: UInt32(truncatingIfNeeded: command.utf8.count).littleEndian, toByteOffset: 12,
                as: UInt32.self)
            bytes.append(contentsOf: raw)
        }
        name.withUTF8 { bytes.append(contentsOf: $0) }
        command.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// The kind byte of each `ChangeKind`: the format's one table, which `kinds` reads backwards.
    /// Exhaustive, so a new kind does not compile until it has a byte; a byte once written to files
    /// never changes meaning.
    private static func kindByte(_ kind: ChangeKind) -> UInt8 {
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

    /// `kindByte` backwards: the kind each byte stands for (nil: none).
    private static let kinds: [ChangeKind?] = {
        var kinds = [ChangeKind?](repeating: nil, count: 256)
        for kind in ChangeKind.allCases {
            let byte = Int(kindByte(kind))
            precondition(kinds[byte] == nil, "two kinds share the history file's byte \(byte)")
            kinds[byte] = kind
        }
        return kinds
    }()

    /// The history in `bytes` (either version); nil when it is not one of the format's. A last
    /// record cut short (a write cut short) is left out.
    static func parse(_ bytes: [UInt8]) -> History? {
        let history: History?
        if bytes.starts(with: HistoryFileVersion1.header) {
            history = String(validating: bytes, as: UTF8.self).flatMap(HistoryFileVersion1.parse)
        } else {
            guard bytes.starts(with: header) else { return nil }
            history = bytes.withUnsafeBytes {
                parse(records: UnsafeRawBufferPointer(rebasing: $0[header.count...]))
            }
        }
        // Numbering that could not go on (the next change would overflow it) is no history this
        // daemon wrote: a change a second would take 290 billion years to come near the bound.
        guard let history, history.lastSequence < maximumSequence else { return nil }
        return history
    }

    /// Beyond any sequence a history reaches.
    static let maximumSequence = UInt64(Int64.max)

    private static func parse(records raw: UnsafeRawBufferPointer) -> History? {
        var history = History(), sequence: UInt64 = 0
        var undoable: [History.Move] = [], redoable: [History.Move] = [], entries: [History.Record] = []
        var replaying = false
        var at = 0
        func u64(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + offset, as: UInt64.self))
        }
        func i64(_ offset: Int) -> Int64 { Int64(bitPattern: u64(offset)) }
        func u32(_ offset: Int) -> Int {
            Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + offset, as: UInt32.self)))
        }
        while at < raw.count {
            let tag = raw[at], rest = raw.count - at
            let size =
                tag == UInt8(ascii: "S")
                ? 16
                : tag == UInt8(ascii: "U") || tag == UInt8(ascii: "R")
                    ? 24
                    : tag == UInt8(ascii: "W") ? 16 : 40
            if rest < size { break }  // cut short
            let head = u64(0)
            switch tag {
            case UInt8(ascii: "S"):
                guard head >> 8 == 0, !replaying, entries.isEmpty else { return nil }
                sequence = u64(8)
            case UInt8(ascii: "U"), UInt8(ascii: "R"):
                guard head >> 8 == 0, !replaying, entries.isEmpty else { return nil }
                let move = History.Move(from: Int(i64(8)), to: Int(i64(16)))
                if tag == UInt8(ascii: "U") { undoable.append(move) } else { redoable.append(move) }
            case UInt8(ascii: "W"):
                let nameLength = u32(8), commandLength = u32(12)
                guard head >> 8 & 0xFF == 0, nameLength <= 255, commandLength <= 64 * 1024 else {
                    return nil
                }
                if rest < size + nameLength + commandLength { at = raw.count; continue }  // cut short
                let text = { (offset: Int, count: Int) in
                    String(
                        validating: UnsafeRawBufferPointer(
                            rebasing: raw[(at + offset)..<(at + offset + count)]), as: UTF8.self)
                }
                guard let name = text(size, nameLength),
                    let command = text(size + nameLength, commandLength),
                    history.define(
                        slot: Int(head >> 16 & 0xFFFF),
                        as: ClientIdentity(
                            fromFile: name, pid: UInt32(head >> 32),
                            command: command))
                else { return nil }
                at += nameLength + commandLength
            case UInt8(ascii: "L"), UInt8(ascii: "E"):
                let slot = Int(head >> 16 & 0xFFFF)
                guard head >> 32 == 0, let kind = kinds[Int(head >> 8 & 0xFF)],
                    history.clients.isDefined(slot)
                else { return nil }
                let record = History.Record(
                    sequence: u64(8), time: i64(16), from: Int(i64(24)), to: Int(i64(32)),
                    kind: kind, client: slot)
                if tag == UInt8(ascii: "L") {
                    guard !replaying else { return nil }
                    entries.append(record)
                } else {
                    if !replaying {
                        history.restore(
                            entries, undoable: undoable, redoable: redoable, lastSequence: sequence)
                        replaying = true
                    }
                    guard record.sequence > history.lastSequence else { return nil }
                    history.apply(record)
                }
            default:
                return nil
            }
            at += size
        }
        if !replaying {
            history.restore(entries, undoable: undoable, redoable: redoable, lastSequence: sequence)
        }
        return history
    }
}
