import Glibc
import SizeSelectorContract
import SnapCore
import SnapTexts

/// Why the model refused a request.
public enum ModelError: Error, Equatable {
    /// The core refused it (a preview is open, an index out of range, a non-finite x...).
    case refused(SnapError)
    /// The new committed size could not be saved, so nothing changed.
    case saveFailed(String)
    /// Undo with no change left to undo (Redo: none undone to redo).
    case nothingToUndo
    case nothingToRedo
}

/// The one owner of the selection. The D-Bus object and the accessible slider ask it to change,
/// and emit what it reports changed; neither keeps a copy of the index.
///
/// A transition runs on a copy first. If it changes the committed index, the new size is saved
/// durably before anything else happens, so that a reply the client sees is never lost; a failed
/// save refuses the request and leaves everything as it was.
public final class SelectionModel {
    public private(set) var selection: Selection
    /// The words for this selection (label, value texts, description), in the daemon's language;
    /// a reload (SIGHUP) may replace them (`setTexts`).
    public private(set) var texts: Texts
    /// The value text of every allowed size, composed once per `texts`: `ValueTexts`, and `ValueText` is one of them.
    public private(set) var valueTexts: [String]
    private let store: StateStore?
    /// The recent changes of the committed size and the undo position (`History`), recorded here,
    /// where every change passes, with the cause the caller names.
    public private(set) var history: History
    // Read on every announced change: these look into the history where it is, not at a copy of it.
    public var canUndo: Bool { history.canUndo }
    public var canRedo: Bool { history.canRedo }
    public var lastChangeKind: ChangeKind? { history.lastKind }
    /// Wall-clock time in microseconds since the epoch, for the history's entries.
    private let clock: () -> Int64
    /// The history before the open group's first commit: a group whose save fails goes back to it.
    private var historyBeforeGroup: History.Mark?
    /// Group commit (`beginGroup`/`endGroup`): while a group is open, commits are not saved one by
    /// one; `lastSaved` is the selection on disk and `unsavedSize` the size to save at the end.
    private var grouping = false
    private var lastSaved: Selection?
    private var unsavedSize: Int?
    /// Told every change, in this order (`Daemon.wire` sets them). Not kept alive by the model:
    /// they hold it, and whoever wires them keeps them.
    private var adapterList: [UnownedAdapter] = []

    private struct UnownedAdapter {
        unowned let adapter: any ModelAdapter
    }

    public init(
        selection: Selection, texts: Texts = Texts(), store: StateStore?, history: History = History(),
        clock: @escaping () -> Int64 = wallClockMicroseconds
    ) {
        self.selection = selection
        self.history = history
        self.clock = clock
        self.texts = texts
        valueTexts = texts.valueTexts(selection.sizes)
        self.store = store
    }

    /// The one way to observe the model: each adapter is told every change, with exactly what
    /// changed (never an empty change), in the order of this list.
    public var adapters: [any ModelAdapter] {
        get { adapterList.map(\.adapter) }
        set { adapterList = newValue.map(UnownedAdapter.init) }
    }

    private func publish(_ change: ModelChange) {
        for entry in adapterList { entry.adapter.modelChanged(change) }
    }

    /// New words (a reload): the adapters are told what changed; returns it (nil: nothing).
    @discardableResult
    public func setTexts(_ new: Texts) -> ModelChange? {
        let newValueTexts = new.valueTexts(selection.sizes)
        var facts: ModelFacts = []
        if new.label != texts.label { facts.insert(.label) }
        if newValueTexts != valueTexts { facts.formUnion([.valueTexts, .valueText]) }
        texts = new
        valueTexts = newValueTexts
        guard !facts.isEmpty else { return nil }
        let change = ModelChange(facts)
        publish(change)
        return change
    }

    /// A new list, track or layout, for `cause` (`RunningSettings` calls it: a reload, or a client's
    /// run-time override). The committed size maps to the new list (`Selection.rebased(on:)`: the
    /// same size if still allowed, else the nearest), and a move is recorded as `cause`.
    /// An open preview: a reload (`.reload`, the daemon following its file) ends it as a cancel
    /// does; any other cause is a client's and is refused while one is open (`previewActive`), as
    /// every direct change is. A new committed size is saved first, as any commit is; if that fails
    /// nothing changes (an open preview stays open) and `.saveFailed` is thrown. Then the preview
    /// ends (the adapters hear it), the snapper is replaced, and the adapters are told what changed,
    /// once; returns it (nil: the same snapper). No preview is open afterwards, so the shown index
    /// and size are the committed ones and change with them. Called outside a group (the loop runs
    /// signal handlers between groups).
    @discardableResult
    public func setSnapper(_ new: Snapper, as cause: ChangeCause) throws(ModelError) -> ModelChange? {
        guard new != selection.snapper else { return nil }
        if cause.kind != .reload, let owner = previewOwner {
            throw .refused(.previewActive(owner: owner))
        }
        let next = selection.rebased(on: new)
        if next.committedSize != selection.committedSize, let store,
            let problem = store.save(size: next.committedSize)
        {
            throw .saveFailed(problem)
        }
        // Cannot fail: ending a preview commits nothing, so there is nothing to save.
        if selection.isPreviewing { _ = try? perform(as: nil) { $0.endPreview() } }
        let old = selection, oldValueTexts = valueTexts
        selection = next
        valueTexts = texts.valueTexts(next.sizes)
        var facts: ModelFacts = []
        if next.sizes != old.sizes { facts.insert(.sizes) }
        if new.track.width != old.snapper.track.width { facts.insert(.trackWidth) }
        if new.track.inset != old.snapper.track.inset { facts.insert(.trackInset) }
        if new.layout != old.snapper.layout { facts.insert(.layout) }
        if valueTexts != oldValueTexts { facts.insert(.valueTexts) }
        if next.committed != old.committed { facts.formUnion([.committedIndex, .shownIndex]) }
        if next.committedSize != old.committedSize { facts.formUnion([.committedSize, .shownSize]) }
        if valueTexts[next.committed] != oldValueTexts[old.committed] { facts.insert(.valueText) }
        var change = ModelChange(facts)
        if next.committedSize != old.committedSize {
            change.insert(record(from: old.committedSize, to: next.committedSize, cause: cause))
        }
        publish(change)
        return change
    }

    /// A step of the committed index (D-Bus Increment/Decrement/StepBy and the accessible actions).
    @discardableResult
    public func step(by steps: Int, as cause: ChangeCause) throws(ModelError) -> StepResult {
        try perform({ selection throws(SnapError) in try selection.step(by: steps) }, as: cause) {
            result in
            ModelChange(
                result.change,
                stop: result.atLimit
                    ? ModelChange.Stop(largest: steps > 0, moved: !result.change.isEmpty) : nil)
        }
    }

    /// Applies `transition`, saving and notifying as described above, and returns its result;
    /// `change` says what it changed, and what else happened. A change of the committed size is
    /// recorded in the history as `cause` (nil: a transition that never commits, such as ending a
    /// preview; were one to commit, it is recorded as a commit by no client). An undo or redo is
    /// recorded even when the size it goes back to is the one committed (a reload snapped it there),
    /// so that the next one goes further.
    @discardableResult
    public func perform<Result>(
        _ transition: (inout Selection) throws(SnapError) -> Result, as cause: ChangeCause?,
        change: (Result) -> ModelChange
    ) throws(ModelError) -> Result {
        var next = selection
        let result: Result
        do {
            result = try transition(&next)
        } catch {
            throw .refused(error)
        }
        var changed = change(result)
        if changed.facts.contains(.committedIndex), let store {
            if grouping {
                if lastSaved == nil { lastSaved = selection; historyBeforeGroup = history.startMark() }
                unsavedSize = next.committedSize
            } else if let problem = store.save(size: next.committedSize) {
                throw .saveFailed(problem)
            }
        }
        let undoing = cause?.kind == .undo || cause?.kind == .redo
        if changed.facts.contains(.committedIndex) || undoing {
            changed.insert(
                record(
                    from: selection.committedSize, to: next.committedSize,
                    cause: cause ?? ChangeCause(.commit)))
        }
        selection = next
        if !changed.isEmpty { publish(changed) }
        return result
    }

    /// Records a change in the history; returns the facts it changed.
    private func record(from: Int, to: Int, cause: ChangeCause) -> ModelFacts {
        let could = (history.canUndo, history.canRedo)
        history.record(from: from, to: to, cause: cause, time: clock())
        var facts: ModelFacts = .lastChange
        if history.canUndo != could.0 { facts.insert(.canUndo) }
        if history.canRedo != could.1 { facts.insert(.canRedo) }
        return facts
    }

    /// A client's process became known (the bus answers asynchronously): the history's entries of
    /// its changes name it too, and the adapters hear that the history changed.
    public func learned(_ identity: ClientIdentity) {
        if history.learned(identity) { publish(ModelChange(.lastChange)) }
    }

    /// Commits the size before the newest change not undone yet (the nearest allowed one, as
    /// `SetSize` picks it, when a reload dropped it). Refused while a preview is open.
    @discardableResult
    public func undo(by who: ClientIdentity) throws(ModelError) -> SelectionChange {
        try undoOrRedo(history.nextUndo?.from, as: ChangeCause(.undo, by: who), none: .nothingToUndo)
    }

    /// Commits again the size the newest undone change went to (snapped as `undo` does).
    @discardableResult
    public func redo(by who: ClientIdentity) throws(ModelError) -> SelectionChange {
        try undoOrRedo(history.nextRedo?.to, as: ChangeCause(.redo, by: who), none: .nothingToRedo)
    }

    private func undoOrRedo(_ size: Int?, as cause: ChangeCause, none: ModelError) throws(ModelError)
        -> SelectionChange
    {
        // A preview refuses first: the holder is named whether or not there is something to undo.
        if let owner = previewOwner { throw .refused(.previewActive(owner: owner)) }
        guard let size else { throw none }
        return try perform({ selection throws(SnapError) in try selection.set(size: size) }, as: cause) {
            ModelChange($0)
        }
    }

    /// Opens a group: until `endGroup`, commits change the selection and notify at once but are
    /// saved together at the end. The caller holds back every reply and announcement meanwhile
    /// (DBusKit's `EventLoop.groupCommit`), so none is seen before the group is durable.
    public func beginGroup() {
        grouping = true
    }

    /// Closes the group: saves its last committed size, once. If that fails, the selection goes
    /// back to the one saved before the group (the adapters are told) and the problem is returned.
    public func endGroup() -> ModelError? {
        grouping = false
        guard let size = unsavedSize, let saved = lastSaved, let store else { return nil }
        let savedHistory = historyBeforeGroup
        unsavedSize = nil
        lastSaved = nil
        historyBeforeGroup = nil
        guard let problem = store.save(size: size) else {
            if savedHistory != nil { history.endMark() }
            return nil
        }
        var undone = ModelChange(
            SelectionChange(
                committed: saved.committed != selection.committed ? saved.committed : nil,
                shown: saved.shown != selection.shown ? saved.shown : nil,
                previewing: saved.isPreviewing != selection.isPreviewing ? saved.isPreviewing : nil))
        // The group's entries go too: what was not saved did not happen.
        if let savedHistory, savedHistory.lastSequence != history.lastSequence {
            let could = (history.canUndo, history.canRedo)
            history.rewind(to: savedHistory)
            var facts: ModelFacts = .lastChange
            if history.canUndo != could.0 { facts.insert(.canUndo) }
            if history.canRedo != could.1 { facts.insert(.canRedo) }
            undone.insert(facts)
        } else if savedHistory != nil {
            history.endMark()
        }
        selection = saved
        if !undone.isEmpty { publish(undone) }
        return .saveFailed(problem)
    }

    /// A preview by `owner` at `x`: `Selection.preview`. Every accepted one is `.previewTouched`,
    /// even one that shows the same index (the preview guard's heartbeat).
    @discardableResult
    public func preview(x: Double, by owner: PreviewOwner) throws(ModelError) -> SelectionChange {
        try perform({ selection throws(SnapError) in try selection.preview(x: x, by: owner) }, as: nil) {
            change in
            ModelChange(change, previewTouchedBy: owner)
        }
    }

    /// The common case: a transition that returns its change.
    @discardableResult
    public func perform(
        as cause: ChangeCause?,
        _ transition: (inout Selection) throws(SnapError) -> SelectionChange
    ) throws(ModelError) -> SelectionChange {
        try perform(transition, as: cause, change: { ModelChange($0) })
    }

    // MARK: Read-only views for the adapters

    public var sizes: SizeSet { selection.sizes }
    public var snapper: Snapper { selection.snapper }
    public var committedIndex: Int { selection.committed }
    public var committedSize: Int { selection.committedSize }
    public var shownIndex: Int { selection.shown }
    public var shownSize: Int { selection.shownSize }
    public var isPreviewing: Bool { selection.isPreviewing }
    public var previewOwner: PreviewOwner? { selection.preview?.owner }
    public var valueText: String { valueTexts[selection.shown] }
}

/// Now, in microseconds since the epoch (CLOCK_REALTIME): the history's clock.
public func wallClockMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
