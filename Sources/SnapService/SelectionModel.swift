import SnapCore
import SnapTexts

/// Why the model refused a request.
public enum ModelError: Error, Equatable {
    /// The core refused it (a preview is open, an index out of range, a non-finite x...).
    case refused(SnapError)
    /// The new committed size could not be saved, so nothing changed.
    case saveFailed(String)
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
    /// Group commit (`beginGroup`/`endGroup`): while a group is open, commits are not saved one by
    /// one; `lastSaved` is the selection on disk and `unsavedSize` the size to save at the end.
    private var grouping = false
    private var lastSaved: Selection?
    private var unsavedSize: Int?
    private var observers: [(SelectionChange) -> Void] = []
    private var limitObservers: [(_ largest: Bool, _ moved: Bool) -> Void] = []
    private var previewMoveObservers: [(PreviewOwner) -> Void] = []
    private var textsObservers: [(TextsChange) -> Void] = []
    private var snapperObservers: [(SnapperChange) -> Void] = []

    /// What a change of `texts` changed in the words the adapters publish.
    public struct TextsChange: Equatable {
        /// The label (`Label`, the accessible name).
        public var label: Bool
        /// The value texts (`ValueTexts`, `ValueText`, the accessible description and value text).
        public var valueTexts: Bool
    }

    /// What a new list, track or layout (`setSnapper`) changed in what the adapters publish. No
    /// preview is open afterwards, so the shown index and size are the committed ones and change with them.
    public struct SnapperChange: Equatable {
        public var sizes = false
        public var trackWidth = false
        public var trackInset = false
        public var layout = false
        public var committedIndex = false
        public var committedSize = false
        /// `ValueTexts` (the value text of every size).
        public var valueTexts = false
        /// `ValueText` (the committed size's value text).
        public var valueText = false
    }

    public init(selection: Selection, texts: Texts = Texts(), store: StateStore?) {
        self.selection = selection
        self.texts = texts
        valueTexts = texts.valueTexts(selection.sizes)
        self.store = store
    }

    /// `observer` runs after every change, with exactly what changed (never with an empty change).
    /// Observers run in the order they were added; `Daemon` states the order it needs in one place.
    public func observe(_ observer: @escaping (SelectionChange) -> Void) {
        observers.append(observer)
    }

    /// `observer` runs after every accepted `preview(x:by:)`, even one that shows the same index
    /// (and so changes nothing): the owner is still there and moving (the preview guard's heartbeat).
    public func observePreviewMoves(_ observer: @escaping (PreviewOwner) -> Void) {
        previewMoveObservers.append(observer)
    }

    /// `observer` runs after each step that an end of the list stopped (an Increment at the largest
    /// size, a StepBy that went past an end), after the change observers; `moved` tells whether the
    /// step changed the selection before it stopped; `largest`, which end stopped it.
    public func observeLimits(_ observer: @escaping (_ largest: Bool, _ moved: Bool) -> Void) {
        limitObservers.append(observer)
    }

    /// `observer` runs after `setTexts` changed the words, with what changed.
    public func observeTexts(_ observer: @escaping (TextsChange) -> Void) {
        textsObservers.append(observer)
    }

    /// New words (a reload): the texts observers are told what changed; returns it (nil: nothing).
    @discardableResult
    public func setTexts(_ new: Texts) -> TextsChange? {
        let newValueTexts = new.valueTexts(selection.sizes)
        let change = TextsChange(label: new.label != texts.label, valueTexts: newValueTexts != valueTexts)
        texts = new
        valueTexts = newValueTexts
        guard change.label || change.valueTexts else { return nil }
        for observer in textsObservers { observer(change) }
        return change
    }

    /// `observer` runs after `setSnapper` changed the list, track or layout, with what changed.
    public func observeSnapper(_ observer: @escaping (SnapperChange) -> Void) {
        snapperObservers.append(observer)
    }

    /// A new list, track or layout (a reload). The committed size maps to the new list
    /// (`Selection.moved(to:)`: the same size if still allowed, else the nearest). A new committed
    /// size is saved first, as any commit is; if that fails nothing changes (an open preview stays
    /// open) and `.saveFailed` is thrown. Then an open preview ends as a cancel does (the change
    /// observers hear it), the snapper is replaced, and the snapper observers are told what changed,
    /// once; returns it (nil: the same snapper). Called outside a group (the loop runs signal
    /// handlers between groups).
    @discardableResult
    public func setSnapper(_ new: Snapper) throws(ModelError) -> SnapperChange? {
        guard new != selection.snapper else { return nil }
        let next = selection.moved(to: new)
        if next.committedSize != selection.committedSize, let store, let problem = store.save(size: next.committedSize) {
            throw .saveFailed(problem)
        }
        // Cannot fail: ending a preview commits nothing, so there is nothing to save.
        if selection.isPreviewing { _ = try? perform { $0.endPreview() } }
        let old = selection, oldValueTexts = valueTexts
        selection = next
        valueTexts = texts.valueTexts(next.sizes)
        let change = SnapperChange(sizes: next.sizes != old.sizes, trackWidth: new.track.width != old.snapper.track.width,
                                   trackInset: new.track.inset != old.snapper.track.inset,
                                   layout: new.layout != old.snapper.layout, committedIndex: next.committed != old.committed,
                                   committedSize: next.committedSize != old.committedSize,
                                   valueTexts: valueTexts != oldValueTexts,
                                   valueText: valueTexts[next.committed] != oldValueTexts[old.committed])
        for observer in snapperObservers { observer(change) }
        return change
    }

    /// A step of the committed index (D-Bus Increment/Decrement/StepBy and the accessible actions).
    @discardableResult
    public func step(by steps: Int) throws(ModelError) -> StepResult {
        let result = try perform({ selection throws(SnapError) in try selection.step(by: steps) }, change: \.change)
        if result.atLimit {
            for observer in limitObservers { observer(steps > 0, !result.change.isEmpty) }
        }
        return result
    }

    /// Applies `transition`, saving and notifying as described above, and returns its result.
    @discardableResult
    public func perform<Result>(_ transition: (inout Selection) throws(SnapError) -> Result,
                                change: (Result) -> SelectionChange) throws(ModelError) -> Result {
        var next = selection
        let result: Result
        do {
            result = try transition(&next)
        } catch {
            throw .refused(error)
        }
        let changed = change(result)
        if changed.committed != nil, let store {
            if grouping {
                if lastSaved == nil { lastSaved = selection }
                unsavedSize = next.committedSize
            } else if let problem = store.save(size: next.committedSize) {
                throw .saveFailed(problem)
            }
        }
        selection = next
        if !changed.isEmpty {
            for observer in observers { observer(changed) }
        }
        return result
    }

    /// Opens a group: until `endGroup`, commits change the selection and notify at once but are
    /// saved together at the end. The caller holds back every reply and announcement meanwhile
    /// (DBusKit's `EventLoop.groupCommit`), so none is seen before the group is durable.
    public func beginGroup() {
        grouping = true
    }

    /// Closes the group: saves its last committed size, once. If that fails, the selection goes
    /// back to the one saved before the group (observers are told) and the problem is returned.
    public func endGroup() -> ModelError? {
        grouping = false
        guard let size = unsavedSize, let saved = lastSaved, let store else { return nil }
        unsavedSize = nil
        lastSaved = nil
        guard let problem = store.save(size: size) else { return nil }
        let undone = SelectionChange(committed: saved.committed != selection.committed ? saved.committed : nil,
                                     shown: saved.shown != selection.shown ? saved.shown : nil,
                                     previewing: saved.isPreviewing != selection.isPreviewing ? saved.isPreviewing : nil)
        selection = saved
        if !undone.isEmpty {
            for observer in observers { observer(undone) }
        }
        return .saveFailed(problem)
    }

    /// A preview by `owner` at `x`: `Selection.preview`, then the preview-move observers.
    @discardableResult
    public func preview(x: Double, by owner: PreviewOwner) throws(ModelError) -> SelectionChange {
        let change = try perform { selection throws(SnapError) in try selection.preview(x: x, by: owner) }
        for observer in previewMoveObservers { observer(owner) }
        return change
    }

    /// The common case: a transition that returns its change.
    @discardableResult
    public func perform(_ transition: (inout Selection) throws(SnapError) -> SelectionChange) throws(ModelError) -> SelectionChange {
        try perform(transition, change: { $0 })
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
    public var committedValueText: String { valueTexts[selection.committed] }
}
