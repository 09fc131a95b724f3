/// Who holds a preview: an opaque token (the service uses the client's unique bus name).
public struct PreviewOwner: Hashable, Sendable {
    public let id: String
    /// Who it is for people ("snapsizectl adjust (pid 4242)"); the id when nobody could tell.
    /// Not part of its identity: two owners with the same id are the same owner.
    public let name: String

    public init(_ id: String, name: String? = nil) {
        self.id = id
        self.name = name ?? id
    }

    public static func == (a: PreviewOwner, b: PreviewOwner) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// What a transition changed; `nil` means "unchanged". Adapters emit exactly these and nothing else.
public struct SelectionChange: Equatable, Sendable {
    /// The new committed index, if it changed.
    public var committed: Int?
    /// The new shown index (preview, else committed), if it changed.
    public var shown: Int?
    /// The new previewing flag, if it changed.
    public var previewing: Bool?

    public init(committed: Int? = nil, shown: Int? = nil, previewing: Bool? = nil) {
        self.committed = committed
        self.shown = shown
        self.previewing = previewing
    }

    public static let none = SelectionChange()
    public var isEmpty: Bool { committed == nil && shown == nil && previewing == nil }
}

/// The result of a step: what changed, and whether the step was stopped by an end of the list.
public struct StepResult: Equatable, Sendable {
    public var change: SelectionChange
    /// True when the requested step went beyond the first or last size and was clamped
    /// (an increment at the largest size changes nothing and reports true).
    public var atLimit: Bool
}

/// The selection state machine: one committed index plus at most one preview owned by one client.
///
/// The committed index changes only through a commit, a step or a set. A preview shows an index
/// without touching the committed one; while it is open, steps and sets are refused and so is
/// every other client's preview, commit and cancel.
public struct Selection: Equatable, Sendable {
    public struct Preview: Equatable, Sendable {
        public let owner: PreviewOwner
        public let index: Int
    }

    public let snapper: Snapper
    public private(set) var committed: Int
    public private(set) var preview: Preview?

    /// Starts with `committed` selected; it must be a valid index.
    public init(snapper: Snapper = Snapper(), committed: Int) throws(SnapError) {
        guard snapper.sizes.contains(index: committed) else {
            throw .indexOutOfRange(index: committed, count: snapper.sizes.count)
        }
        self.snapper = snapper
        self.committed = committed
    }

    public var sizes: SizeSet { snapper.sizes }
    /// What is on screen: the preview while one is open, else the committed index.
    public var shown: Int { preview?.index ?? committed }
    public var isPreviewing: Bool { preview != nil }
    public var committedSize: Int { sizes[committed] }
    public var shownSize: Int { sizes[shown] }

    // MARK: Pointer gestures

    /// Shows the index under `x` as a preview owned by `owner`; the committed index is untouched.
    public mutating func preview(x: Double, by owner: PreviewOwner) throws(SnapError) -> SelectionChange
    {
        let index = try snapper.index(at: x)
        try requireNoOtherOwner(than: owner)
        return apply(committed: committed, preview: Preview(owner: owner, index: index))
    }

    /// Release at `x`: the index is computed from this final x (not the last preview), committed,
    /// and the preview ends. With no preview open this is a tap that commits directly.
    public mutating func commit(x: Double, by owner: PreviewOwner) throws(SnapError) -> SelectionChange {
        let index = try snapper.index(at: x)
        try requireNoOtherOwner(than: owner)
        return apply(committed: index, preview: nil)
    }

    /// Ends `owner`'s preview and keeps the committed index. With no preview open it does nothing.
    public mutating func cancel(by owner: PreviewOwner) throws(SnapError) -> SelectionChange {
        try requireNoOtherOwner(than: owner)
        return apply(committed: committed, preview: nil)
    }

    /// The owner left (its bus connection closed): its preview ends as if cancelled.
    /// Anyone else's preview, or none, is left alone.
    public mutating func ownerVanished(_ owner: PreviewOwner) -> SelectionChange {
        guard preview?.owner == owner else { return .none }
        return apply(committed: committed, preview: nil)
    }

    /// Ends any open preview as if cancelled (timeout, shutdown).
    public mutating func endPreview() -> SelectionChange {
        apply(committed: committed, preview: nil)
    }

    // MARK: Direct changes (refused while a preview is open)

    /// Moves the committed index by `steps`, clamped at the ends.
    public mutating func step(by steps: Int) throws(SnapError) -> StepResult {
        try requireNoPreview()
        // `committed + steps` overflows only for huge steps, which then lie beyond that end.
        let (target, overflow) = committed.addingReportingOverflow(steps)
        let (index, atLimit) = overflow ? (steps < 0 ? 0 : sizes.lastIndex, true) : sizes.clamp(target)
        return StepResult(change: apply(committed: index, preview: nil), atLimit: atLimit)
    }

    /// Commits `index`; beyond the list is an error, not a clamp.
    public mutating func set(index: Int) throws(SnapError) -> SelectionChange {
        guard sizes.contains(index: index) else {
            throw .indexOutOfRange(index: index, count: sizes.count)
        }
        try requireNoPreview()
        return apply(committed: index, preview: nil)
    }

    /// Commits the allowed size nearest to `size` (ties to the larger, clamped at the ends).
    public mutating func set(size: Int) throws(SnapError) -> SelectionChange {
        let index = sizes.index(nearestTo: size)
        try requireNoPreview()
        return apply(committed: index, preview: nil)
    }

    /// Commits an index given as a number, as an accessibility value write does (3.6 -> 4).
    public mutating func set(indexValue value: Double) throws(SnapError) -> SelectionChange {
        let index = try snapper.index(roundingIndexValue: value)
        try requireNoPreview()
        return apply(committed: index, preview: nil)
    }

    // MARK: A new list (a reload)

    /// This selection on a new list, track or layout (the daemon's reload): no preview, and the
    /// committed size carried over: the same size while it is still allowed, else the allowed size
    /// nearest to it, as `set(size:)` picks it (ties to the larger).
    public func rebased(on snapper: Snapper) -> Selection {
        let index = snapper.sizes.index(nearestTo: committedSize)
        return try! Selection(snapper: snapper, committed: index)  // an index from the list's own lookup
    }

    // MARK: Internals

    private func requireNoOtherOwner(than owner: PreviewOwner) throws(SnapError) {
        if let preview, preview.owner != owner { throw .previewActive(owner: preview.owner) }
    }

    private func requireNoPreview() throws(SnapError) {
        if let preview { throw .previewActive(owner: preview.owner) }
    }

    /// The single place state changes: sets the new state and reports the difference.
    private mutating func apply(committed newCommitted: Int, preview newPreview: Preview?)
        -> SelectionChange
    {
        let before = (committed: committed, shown: shown, previewing: isPreviewing)
        committed = newCommitted
        preview = newPreview
        return SelectionChange(
            committed: committed == before.committed ? nil : committed,
            shown: shown == before.shown ? nil : shown,
            previewing: isPreviewing == before.previewing ? nil : isPreviewing)
    }
}
