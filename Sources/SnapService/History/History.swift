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
/// The entries and each stack keep the newest `capacity`, oldest dropped first. `apply` is the
/// only transition, so the history file replays the same rules (`HistoryFile`).
///
/// An entry is kept as a `Record`: plain numbers, its client an index into a table of the clients
/// the entries name (`Clients`), so that recording one, every change, copies no strings and counts
/// no references; `entries` makes the `HistoryEntry`s when someone asks.
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

    /// An entry with its client as a slot of `clients`.
    struct Record: Equatable, Sendable {
        var sequence: UInt64
        var time: Int64
        var from: Int
        var to: Int
        var kind: ChangeKind
        var client: Int
    }

    /// The records in a ring (appending one is a store, not a shift of a hundred): `ring[first]` is
    /// the oldest once it is full.
    private var ring: [Record] = []
    private var first = 0
    private(set) var clients = Clients()
    private var undoStack = MoveStack()
    private var redoStack = MoveStack()
    /// The sequence number of the newest entry ever recorded (0: none).
    public private(set) var lastSequence: UInt64 = 0

    public init() {}

    /// Bottom first: the last one is what `Undo` takes back.
    public var undoable: [Move] { undoStack.elements }
    /// Bottom first: the last one is what `Redo` applies again.
    public var redoable: [Move] { redoStack.elements }

    /// A history as a file's snapshot holds it (its records name `clients`' slots).
    mutating func restore(_ records: [Record], undoable: [Move], redoable: [Move], lastSequence: UInt64)
    {
        for record in records.suffix(Self.capacity) { append(record) }
        for move in undoable { undoStack.push(move) }
        for move in redoable { redoStack.push(move) }
        self.lastSequence = max(lastSequence, records.last?.sequence ?? 0)
    }

    /// A history as a version 1 file holds it, each entry naming its client.
    mutating func restore(
        entries: [HistoryEntry], undoable: [Move], redoable: [Move], lastSequence: UInt64
    ) {
        // One by one: a slot is taken once a record holds it, before the next client looks for one.
        for entry in entries.suffix(Self.capacity) { append(record(of: entry)) }
        restore(
            [], undoable: undoable, redoable: redoable,
            lastSequence: max(lastSequence, entries.last?.sequence ?? 0))
    }

    /// A record of `entry`, its client given a slot; apply or append it before the next one.
    mutating func record(of entry: HistoryEntry) -> Record {
        Record(
            sequence: entry.sequence, time: entry.time, from: entry.from, to: entry.to,
            kind: entry.kind ?? .commit,
            client: clients.slot(for: entry.by))
    }

    public static func == (a: History, b: History) -> Bool {
        a.lastSequence == b.lastSequence && a.undoable == b.undoable && a.redoable == b.redoable
            && a.entries == b.entries
    }

    /// Oldest first.
    public var entries: [HistoryEntry] {
        var made: [HistoryEntry] = []
        made.reserveCapacity(ring.count)
        forEachRecord(after: 0) { made.append(entry($0)) }
        return made
    }

    private func entry(_ record: Record) -> HistoryEntry {
        HistoryEntry(
            sequence: record.sequence, time: record.time, from: record.from, to: record.to,
            kind: record.kind,
            by: clients[record.client])
    }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    public var nextUndo: Move? { undoStack.top }
    public var nextRedo: Move? { redoStack.top }
    public var lastKind: ChangeKind? { ring.isEmpty ? nil : ring[newest].kind }
    public var last: HistoryEntry { ring.isEmpty ? .none : entry(ring[newest]) }
    private var newest: Int { first == 0 ? ring.count - 1 : first - 1 }

    /// Records a change from `from` to `to` at `time` (µs since the epoch) and applies its kind's rule
    /// to the stacks.
    public mutating func record(from: Int, to: Int, cause: ChangeCause, time: Int64) {
        let slot = clients.slot(for: cause.by)
        apply(
            Record(
                sequence: lastSequence + 1, time: time, from: from, to: to, kind: cause.kind,
                client: slot))
    }

    /// Appends `record` (its sequence number is taken as it is, its client must be in `clients`)
    /// and applies its kind's rule.
    mutating func apply(_ record: Record) {
        lastSequence = record.sequence
        append(record)
        switch record.kind {
        case .step, .set, .commit, .accessible:
            undoStack.push(Move(from: record.from, to: record.to))
            redoStack.removeAll()
        case .undo:
            if let move = undoStack.pop() { redoStack.push(move) }
        case .redo:
            if let move = redoStack.pop() { undoStack.push(move) }
        case .reload:
            break
        }
    }

    private mutating func append(_ record: Record) {
        clients.use(record.client)
        if ring.count < Self.capacity {
            ring.append(record)
        } else {
            clients.release(ring[first].client)
            ring[first] = record
            first = first == Self.capacity - 1 ? 0 : first + 1
        }
    }

    /// The file names a client (`HistoryFile`): `slot` is `identity` from now on, for the records
    /// that name it already too. False when the slot is beyond what a table can hold.
    mutating func define(slot: Int, as identity: ClientIdentity) -> Bool {
        clients.define(slot, as: identity)
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
        Mark(
            lastSequence: lastSequence, undoStack: undoStack.startJournal(),
            redoStack: redoStack.startJournal())
    }

    /// What was recorded since the mark stays.
    mutating func endMark() {
        undoStack.endJournal()
        redoStack.endJournal()
    }

    /// Takes back what was recorded since `mark` (entries that pushed older ones out do not bring them back).
    mutating func rewind(to mark: Mark) {
        var kept: [Record] = []
        forEachRecord(after: 0) { if $0.sequence <= mark.lastSequence { kept.append($0) } }
        ring = kept
        first = 0
        clients.recount(ring.map(\.client))
        lastSequence = mark.lastSequence
        undoStack.rewind(to: mark.undoStack)
        redoStack.rewind(to: mark.redoStack)
    }

    /// A client's process became known after its changes were recorded (the bus answers the
    /// question asynchronously): its entries name it too. False when none did.
    mutating func learned(_ identity: ClientIdentity) -> Bool {
        clients.learned(identity)
    }

    /// Runs `body` on each record newer than `sequence`, oldest first (no array made: the file's
    /// write runs after every few changes).
    func forEachRecord(after sequence: UInt64, _ body: (Record) -> Void) {
        var newer = 0
        while newer < ring.count, ring[(first + ring.count - 1 - newer) % ring.count].sequence > sequence
        { newer += 1 }
        for offset in (ring.count - newer)..<ring.count { body(ring[(first + offset) % ring.count]) }
    }

    /// The newest `limit` entries, oldest first.
    public func newest(_ limit: Int) -> ArraySlice<HistoryEntry> {
        entries.suffix(max(0, limit))
    }
}

/// The clients the records name, each in a slot that a record holds by its index: a slot no record
/// names any more is taken by the next new client. `generation` counts the times a slot was given
/// an identity, so the file writes a slot again exactly when it changed (`HistoryFile`).
struct Clients: Sendable {
    private var identities: [ClientIdentity] = []
    private var uses: [Int] = []
    private(set) var generations: [Int] = []
    /// Whatever slot `slot(for:)` found last: a run of changes is mostly one client's.
    private var last = -1
    /// Counts the times an identity changed in place (`learned`), so the file looks at every slot.
    private(set) var revision = 0
    /// At most a slot per entry and one for the entry being recorded, were each by another client;
    /// the file may name no slot beyond this.
    static let maximumSlots = 4 * History.capacity

    var count: Int { identities.count }
    subscript(slot: Int) -> ClientIdentity { identities[slot] }
    func isUsed(_ slot: Int) -> Bool { uses[slot] > 0 }

    /// The slot that names `identity`: the last one found, else one that names it already, else a free one.
    mutating func slot(for identity: ClientIdentity) -> Int {
        if last >= 0 && identities[last] == identity { return last }
        var free = -1
        for slot in identities.indices {
            if identities[slot] == identity {
                last = slot
                return slot
            }
            if free < 0 && uses[slot] == 0 { free = slot }
        }
        if free < 0 {
            free = identities.count
            identities.append(identity)
            uses.append(0)
            generations.append(1)
        } else {
            identities[free] = identity
            generations[free] += 1
        }
        last = free
        return free
    }

    mutating func define(_ slot: Int, as identity: ClientIdentity) -> Bool {
        guard slot >= 0 && slot < Self.maximumSlots else { return false }
        while identities.count <= slot {
            identities.append(.unknown)
            uses.append(0)
            generations.append(0)
        }
        identities[slot] = identity
        generations[slot] += 1
        last = -1
        return true
    }

    /// Whether `slot` was defined (a record read from the file must name one that was).
    func isDefined(_ slot: Int) -> Bool {
        slot >= 0 && slot < generations.count && generations[slot] > 0
    }

    mutating func use(_ slot: Int) { uses[slot] += 1 }
    mutating func release(_ slot: Int) { uses[slot] -= 1 }

    mutating func recount(_ slots: [Int]) {
        for slot in uses.indices { uses[slot] = 0 }
        for slot in slots { uses[slot] += 1 }
    }

    mutating func learned(_ identity: ClientIdentity) -> Bool {
        var changed = false
        for slot in identities.indices
        where identities[slot].uniqueName == identity.uniqueName && identities[slot] != identity {
            identities[slot] = identity
            generations[slot] += 1
            if uses[slot] > 0 { changed = true }
        }
        if changed { revision &+= 1 }
        return changed
    }
}

/// A stack of at most `History.capacity` moves that forgets its bottom when full: a ring, so that
/// a push onto a full stack (every change, once a hundred are kept) is a store, not a shift. The ring
/// has room for more than the stack keeps, so such a push writes a slot outside the stack, and the
/// journal of a group's mark (`startJournal`) keeps only what is written inside the marked stack.
private struct MoveStack: Sendable {
    /// A power of two above `History.capacity`.
    private static let room = 128
    private var slots: [History.Move] = []
    /// Where the bottom is, in `slots`.
    private var bottom = 0
    private(set) var count = 0

    private func slot(_ offset: Int) -> Int { (bottom + offset) & (Self.room - 1) }

    var isEmpty: Bool { count == 0 }
    var top: History.Move? { count == 0 ? nil : slots[slot(count - 1)] }
    var elements: [History.Move] { (0..<count).map { slots[slot($0)] } }

    mutating func push(_ move: History.Move) {
        let index = slot(count)
        if index == slots.count { slots.append(move) } else { write(move, at: index) }
        if count == History.capacity { bottom = slot(1) } else { count += 1 }
    }

    private mutating func write(_ move: History.Move, at index: Int) {
        if journaling && (index - marked.bottom) & (Self.room - 1) < marked.count {
            journal.append((index, slots[index]))
        }
        slots[index] = move
    }

    /// Where the stack stands, for `rewind(to:)`.
    struct Position {
        fileprivate var bottom = 0
        fileprivate var count = 0
        fileprivate var slots = 0
    }

    /// The moves of the stack as it was at `startJournal` (`marked`) overwritten since (slot, move), while `journaling`.
    private var journal: [(Int, History.Move)] = []
    private var journaling = false
    private var marked = Position()

    mutating func startJournal() -> Position {
        if !journal.isEmpty { journal.removeAll(keepingCapacity: true) }
        journaling = true
        marked = Position(bottom: bottom, count: count, slots: slots.count)
        return marked
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
