import SnapCore

/// One thing the model publishes that can change, or one event that is not state. Each adapter
/// decides what every case means for its protocol in one `switch` without `default`, so a new case
/// does not compile until every adapter has decided.
public enum ModelFact: Int, CaseIterable, Sendable {
    // In the order the adapters meet them (`ModelFacts` iterates in this order): the list and the
    // words before the selection, so that a new list is announced before the size it moved to.
    /// The allowed sizes (`Sizes`; the accessible description and the Value's maximum).
    case sizes
    case trackWidth
    case trackInset
    case layout
    /// The label (`Label`, the accessible name).
    case label
    /// The value text of every size (`ValueTexts`; the accessible description).
    case valueTexts
    case committedIndex
    case committedSize
    case shownIndex
    case shownSize
    /// The shown size's value text (`ValueText`, the accessible value text).
    case valueText
    case previewing
    /// Whether an Undo (a Redo) would change something (`CanUndo`, `CanRedo`).
    case canUndo
    case canRedo
    /// The history changed (`LastChangeKind`, the history file): every change of the committed size,
    /// and every undo or redo, records an entry; or who made recorded changes became known.
    case lastChange
    /// Not state: a step was stopped by an end of the list (`ModelChange.stop` says which end, and
    /// whether the step moved first).
    case stoppedAtEnd
    /// Not state: the preview's owner sent a Preview, even one that showed the same index
    /// (`ModelChange.previewToucher`): the owner is still there and moving.
    case previewTouched
}

/// A set of `ModelFact`s, one bit per case (its raw value).
public struct ModelFacts: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ fact: ModelFact) { rawValue = 1 << UInt32(fact.rawValue) }

    /// Every fact there is: the size of the adapters' tables.
    public static let all = ModelFacts(ModelFact.allCases)
    /// The facts that are events, not state.
    public static let events: ModelFacts = [.stoppedAtEnd, .previewTouched]

    public init<S: Sequence>(_ facts: S) where S.Element == ModelFact {
        self = facts.reduce(into: []) { set, fact in set.insert(ModelFacts(fact)) }
    }

    public func contains(_ fact: ModelFact) -> Bool { rawValue & ModelFacts(fact).rawValue != 0 }

    /// The facts in the set, in the cases' order.
    public var cases: Cases { Cases(rest: rawValue) }

    public struct Cases: Sequence, IteratorProtocol {
        var rest: UInt32

        public mutating func next() -> ModelFact? {
            guard rest != 0 else { return nil }
            let bit = rest.trailingZeroBitCount
            rest &= rest - 1
            return ModelFact(rawValue: bit)
        }
    }

    public static let sizes = ModelFacts(.sizes)
    public static let trackWidth = ModelFacts(.trackWidth)
    public static let trackInset = ModelFacts(.trackInset)
    public static let layout = ModelFacts(.layout)
    public static let label = ModelFacts(.label)
    public static let valueTexts = ModelFacts(.valueTexts)
    public static let committedIndex = ModelFacts(.committedIndex)
    public static let committedSize = ModelFacts(.committedSize)
    public static let shownIndex = ModelFacts(.shownIndex)
    public static let shownSize = ModelFacts(.shownSize)
    public static let valueText = ModelFacts(.valueText)
    public static let previewing = ModelFacts(.previewing)
    public static let canUndo = ModelFacts(.canUndo)
    public static let canRedo = ModelFacts(.canRedo)
    public static let lastChange = ModelFacts(.lastChange)
    public static let stoppedAtEnd = ModelFacts(.stoppedAtEnd)
    public static let previewTouched = ModelFacts(.previewTouched)
}

/// Everything the model sends its adapters about one change: which published facts changed (read
/// their new values from the model) and which events happened. Never empty.
public struct ModelChange: Equatable, Sendable {
    /// Which end stopped a step, and whether the step changed the selection before it stopped.
    public struct Stop: Equatable, Sendable {
        public var largest: Bool
        public var moved: Bool

        public init(largest: Bool, moved: Bool) {
            self.largest = largest
            self.moved = moved
        }
    }

    public private(set) var facts: ModelFacts
    /// Set exactly when `facts` holds `.stoppedAtEnd`.
    public private(set) var stop: Stop?
    /// Set exactly when `facts` holds `.previewTouched`.
    public private(set) var previewToucher: PreviewOwner?

    /// `facts`' state facts, plus the events given (their facts follow from them).
    public init(_ facts: ModelFacts, stop: Stop? = nil, previewTouchedBy toucher: PreviewOwner? = nil) {
        var all = facts.subtracting(.events)
        if stop != nil { all.insert(.stoppedAtEnd) }
        if toucher != nil { all.insert(.previewTouched) }
        self.facts = all
        self.stop = stop
        previewToucher = toucher
    }

    /// What a transition of the core changed, in published facts. Within one list a new index is a
    /// new size, and every size has its own value text.
    public init(
        _ change: SelectionChange, stop: Stop? = nil, previewTouchedBy toucher: PreviewOwner? = nil
    ) {
        var facts: ModelFacts = []
        if change.committed != nil { facts.formUnion([.committedIndex, .committedSize]) }
        if change.shown != nil { facts.formUnion([.shownIndex, .shownSize, .valueText]) }
        if change.previewing != nil { facts.insert(.previewing) }
        self.init(facts, stop: stop, previewTouchedBy: toucher)
    }

    public var isEmpty: Bool { facts.isEmpty }

    /// Adds state facts (the history's, which the transition itself does not know).
    mutating func insert(_ more: ModelFacts) {
        facts.formUnion(more.subtracting(.events))
    }
}

/// What the model tells: `Daemon.wire` registers the adapters, in the order a change must reach them.
public protocol ModelAdapter: AnyObject {
    /// After every change the model accepted (it is already saved), with exactly what changed.
    func modelChanged(_ change: ModelChange)
}
