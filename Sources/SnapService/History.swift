import SizeSelectorContract

/// Who made a change, and how: what the model records with a change of the committed size.
public struct ChangeCause: Equatable, Sendable {
    public var kind: ChangeKind
    public var by: ClientIdentity

    public init(_ kind: ChangeKind, by: ClientIdentity = .unknown) {
        self.kind = kind
        self.by = by
    }
}

/// The committed size's recent changes, and what `Undo` and `Redo` would do, as in every editor:
/// a change pushes its move on the undo stack and empties the redo stack; an undo moves the newest
/// move from the undo stack to the redo stack, a redo moves it back. A reload is recorded but is
/// neither undone nor discards a redo: the list followed the config file, nobody chose a size.
///
/// The entries and each stack keep the newest `capacity`, oldest dropped first. `record` is the
/// only transition, so the history file replays the same rules (`HistoryFile`).
public struct History: Equatable, Sendable {
    public static let capacity = 100

    /// One change of the committed size, as undo and redo see it.
    public struct Move: Equatable, Sendable {
        public var from: Int
        public var to: Int

        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// The entries in a ring (appending one is a store, not a shift of a hundred): `ring[first]` is
    /// the oldest once it is full.
    private var ring: [HistoryEntry] = []
    private var first = 0
    private var undoStack = MoveStack()
    private var redoStack = MoveStack()
    /// The sequence number of the newest entry ever recorded (0: none).
    public private(set) var lastSequence: UInt64 = 0
    /// Counts the times entries already recorded were changed (`learned`), so that the file writes them again.
    private(set) var revision = 0

    public init() {}

    /// Bottom first: the last one is what `Undo` takes back.
    public var undoable: [Move] { undoStack.elements }
    /// Bottom first: the last one is what `Redo` applies again.
    public var redoable: [Move] { redoStack.elements }

    /// A history as the file's snapshot holds it.
    init(entries: [HistoryEntry], undoable: [Move], redoable: [Move], lastSequence: UInt64) {
        ring = Array(entries.suffix(Self.capacity))
        for move in undoable { undoStack.push(move) }
        for move in redoable { redoStack.push(move) }
        self.lastSequence = max(lastSequence, entries.last?.sequence ?? 0)
    }


    public static func == (a: History, b: History) -> Bool {
        a.lastSequence == b.lastSequence && a.undoable == b.undoable && a.redoable == b.redoable && a.entries == b.entries
    }

    /// Oldest first.
    public var entries: [HistoryEntry] { Array(ring[first...] + ring[..<first]) }
    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    public var nextUndo: Move? { undoStack.top }
    public var nextRedo: Move? { redoStack.top }
    public var lastKind: ChangeKind? { ring.isEmpty ? nil : ring[(first + ring.count - 1) % ring.count].kind }
    public var last: HistoryEntry { ring.isEmpty ? .none : ring[(first + ring.count - 1) % ring.count] }

    /// Records a change from `from` to `to` at `time` (µs since the epoch) and applies its kind's rule
    /// to the stacks; returns the entry.
    @discardableResult
    public mutating func record(from: Int, to: Int, cause: ChangeCause, time: Int64) -> HistoryEntry {
        let entry = HistoryEntry(sequence: lastSequence + 1, time: time, from: from, to: to, kind: cause.kind, by: cause.by)
        apply(entry)
        return entry
    }

    /// Appends `entry` (its sequence number is taken as it is) and applies its kind's rule.
    mutating func apply(_ entry: HistoryEntry) {
        lastSequence = entry.sequence
        if ring.count < Self.capacity {
            ring.append(entry)
        } else {
            ring[first] = entry
            first = (first + 1) % Self.capacity
        }
        switch entry.kind {
        case .step, .set, .commit, .accessible:
            undoStack.push(Move(from: entry.from, to: entry.to))
            redoStack.removeAll()
        case .undo:
            if let move = undoStack.pop() { redoStack.push(move) }
        case .redo:
            if let move = redoStack.pop() { undoStack.push(move) }
        case .reload, nil:
            break
        }
    }

    /// What `rewind(to:)` needs: taken (`startMark`) before changes that may have to be taken back
    /// (a group whose save fails), and ended by `rewind` or `endMark`. Small: the stacks' positions
    /// only. Meanwhile each stack keeps the moves its pushes overwrite, so no stack is copied (a copy
    /// shared with the mark would be copied again, element by element, by the next push: every
    /// grouped commit).
    struct Mark {
        let lastSequence: UInt64
        fileprivate let undoStack: MoveStack.Position
        fileprivate let redoStack: MoveStack.Position
    }

    mutating func startMark() -> Mark {
        Mark(lastSequence: lastSequence, undoStack: undoStack.startJournal(), redoStack: redoStack.startJournal())
    }

    /// What was recorded since the mark stays.
    mutating func endMark() {
        undoStack.endJournal()
        redoStack.endJournal()
    }

    /// Takes back what was recorded since `mark` (entries that pushed older ones out do not bring them back).
    mutating func rewind(to mark: Mark) {
        ring = entries.filter { $0.sequence <= mark.lastSequence }
        first = 0
        lastSequence = mark.lastSequence
        undoStack.rewind(to: mark.undoStack)
        redoStack.rewind(to: mark.redoStack)
    }

    /// A client's process became known after its changes were recorded (the bus answers the
    /// question asynchronously): its entries name it too. False when none did.
    mutating func learned(_ identity: ClientIdentity) -> Bool {
        var changed = false
        for index in ring.indices where ring[index].by.uniqueName == identity.uniqueName && ring[index].by != identity {
            ring[index].by = identity
            changed = true
        }
        if changed { revision &+= 1 }
        return changed
    }

    /// Runs `body` on each entry newer than `sequence`, oldest first (no array made: the file's
    /// write runs after every few changes).
    func forEachEntry(after sequence: UInt64, _ body: (HistoryEntry) -> Void) {
        var newer = 0
        while newer < ring.count, ring[(first + ring.count - 1 - newer) % ring.count].sequence > sequence { newer += 1 }
        for offset in (ring.count - newer)..<ring.count { body(ring[(first + offset) % ring.count]) }
    }

    /// The newest `limit` entries, oldest first.
    public func newest(_ limit: Int) -> ArraySlice<HistoryEntry> {
        entries.suffix(max(0, limit))
    }

}

/// A stack of at most `History.capacity` moves that forgets its bottom when full: a ring, so that
/// a push onto a full stack (every change, once a hundred are kept) is a store, not a shift.
private struct MoveStack: Sendable {
    private var slots: [History.Move] = []
    /// Where the bottom is; it moves only once the ring is full (then `slots.count` is the capacity).
    private var bottom = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var top: History.Move? { count == 0 ? nil : slots[(bottom + count - 1) % slots.count] }
    var elements: [History.Move] { (0..<count).map { slots[(bottom + $0) % slots.count] } }

    mutating func push(_ move: History.Move) {
        if count == History.capacity {
            write(move, at: bottom)
            bottom = (bottom + 1) % slots.count
            return
        }
        let index = slots.isEmpty ? 0 : (bottom + count) % max(slots.count, 1)
        if bottom == 0 && count == slots.count { slots.append(move) } else { write(move, at: index) }
        count += 1
    }

    private mutating func write(_ move: History.Move, at index: Int) {
        if journaling { journal.append((index, slots[index])) }
        slots[index] = move
    }

    /// Where the stack stands, for `rewind(to:)`.
    struct Position {
        fileprivate let bottom: Int
        fileprivate let count: Int
        fileprivate let slots: Int
    }

    /// The moves overwritten since `startJournal` (slot, move), while `journaling`.
    private var journal: [(Int, History.Move)] = []
    private var journaling = false

    mutating func startJournal() -> Position {
        if !journal.isEmpty { journal.removeAll(keepingCapacity: true) }
        journaling = true
        return Position(bottom: bottom, count: count, slots: slots.count)
    }

    mutating func endJournal() {
        if !journal.isEmpty { journal.removeAll(keepingCapacity: true) }
        journaling = false
    }

    /// Back to `position`: the overwritten moves restored, newest first, the slots appended since dropped.
    mutating func rewind(to position: Position) {
        for (index, move) in journal.reversed() { slots[index] = move }
        slots.removeLast(slots.count - position.slots)
        bottom = position.bottom
        count = position.count
        endJournal()
    }

    mutating func pop() -> History.Move? {
        guard let move = top else { return nil }
        count -= 1
        return move
    }

    mutating func removeAll() {
        count = 0
        bottom = 0
    }
}
