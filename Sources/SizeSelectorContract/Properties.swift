import DBusKit

/// The values the properties are read from: the daemon's model on one side, a client's
/// `SelectorState` on the other.
///
/// One mapping of words, stated here once: what the wire calls *selected* (SelectedIndex,
/// SelectedSize, the `selected…` fields and replies) is what SnapCore and the daemon call
/// *committed*: the size that is saved and stays. *Shown* is what the slider shows, which differs
/// from it only while a preview is open.
public protocol SelectorValues {
    var sizes: [Int] { get }
    /// The committed index.
    var selectedIndex: Int { get }
    /// The committed size.
    var selectedSize: Int { get }
    var shownIndex: Int { get }
    var shownSize: Int { get }
    var previewing: Bool { get }
    var valueText: String { get }
    /// The value text of every size, in order ("20 points", …), in the daemon's language.
    var valueTexts: [String] { get }
    var label: String { get }
    var trackWidth: Double { get }
    var trackInset: Double { get }
    var layout: String { get }
    /// The client whose call made the latest change (while a preview is open: its holder).
    var changedBy: ClientIdentity { get }
    /// What is wrong with the config file, one sentence each in the daemon's language; empty when
    /// it was used, or there is none.
    var configProblems: [String] { get }
    /// Whether `Undo` / `Redo` would change something now (a preview aside).
    var canUndo: Bool { get }
    var canRedo: Bool { get }
    /// The kind of the newest change of the committed size the history holds ("step", "undo"…;
    /// "" before any): `ChangeKind`'s raw value.
    var lastChangeKind: String { get }
    /// The file the committed size is saved in; "" when it is not saved anywhere.
    var stateFile: String { get }
    /// Whether it is saved: `StateSaving`'s raw words ("saved", "off", "no-home", "failing: <why>").
    var stateSaving: String { get }
}

/// Whether the committed size is saved, as the `StateSaving` property says it: words for
/// machines (`snapsizectl status` prints them as they are; `doctor` says them in the person's language).
public enum StateSaving: Equatable, Sendable {
    /// Saved in `StateFile` (the last save worked, or none was needed yet and its folder takes files).
    case saved
    /// Not saved: --no-state (or `no-state` in the config file).
    case off
    /// Not saved: neither XDG_STATE_HOME nor HOME is set, and the password database names no home folder.
    case noHome
    /// Not saved: the last save in `StateFile` failed, or its folder cannot take the file (why, in the log's words).
    case failing(String)

    public var wire: String {
        switch self {
        case .saved: "saved"
        case .off: "off"
        case .noHome: "no-home"
        case .failing(let why): "failing: " + why
        }
    }

    /// The word alone: "failing" without its reason (for `--json`'s "stateSaving").
    public var word: String {
        switch self {
        case .saved: "saved"
        case .off: "off"
        case .noHome: "no-home"
        case .failing: "failing"
        }
    }

    /// Reads the property's value; nil for a word this contract does not know.
    public init?(wire: String) {
        switch wire {
        case "saved": self = .saved
        case "off": self = .off
        case "no-home": self = .noHome
        default:
            guard wire.hasPrefix("failing: ") else { return nil }
            self = .failing(String(wire.dropFirst("failing: ".count)))
        }
    }
}

/// The properties of org.snapsize.SizeSelector1: for each its name, D-Bus signature, whether it
/// ever changes, and the one encoder and decoder of its value. The daemon's getters and its
/// PropertiesChanged both go through `encode`; clients read GetAll and PropertiesChanged with `decode`.
public enum SelectorProperty: String, CaseIterable, Sendable {
    case sizes = "Sizes"
    case selectedIndex = "SelectedIndex"
    case selectedSize = "SelectedSize"
    case shownIndex = "ShownIndex"
    case shownSize = "ShownSize"
    case previewing = "Previewing"
    case valueText = "ValueText"
    case valueTexts = "ValueTexts"
    case label = "Label"
    case trackWidth = "TrackWidth"
    case trackInset = "TrackInset"
    case layout = "Layout"
    case changedBy = "ChangedBy"
    case configProblems = "ConfigProblems"
    case canUndo = "CanUndo"
    case canRedo = "CanRedo"
    case lastChangeKind = "LastChangeKind"
    case stateFile = "StateFile"
    case stateSaving = "StateSaving"

    public var name: String { rawValue }

    public var signature: String {
        switch self {
        case .sizes: "ai"
        case .selectedIndex, .shownIndex: "u"
        case .selectedSize, .shownSize: "i"
        case .previewing, .canUndo, .canRedo: "b"
        case .valueText, .label, .layout, .lastChangeKind, .stateFile, .stateSaving: "s"
        case .valueTexts, .configProblems: "as"
        case .trackWidth, .trackInset: "d"
        case .changedBy: "(sus)"
        }
    }

    /// Every property is announced when it changes: the list, the track, the layout, the words
    /// (label, value texts) and the config file's problems change on a reload (SIGHUP), the rest
    /// with the selection. One value for all: the XML documents no other (a property that never
    /// changes would need its `EmitsChangedSignal` annotation there too, which ContractTests compares).
    public static let emitsChange = Property.EmitsChange.true

    /// This property's wire value in `values`. Inlinable, so that the daemon's getters are
    /// specialized for its model (they run on every change).
    @inlinable
    public func encode(_ values: some SelectorValues) -> DBusValue {
        switch self {
        case .sizes: .array(elementSignature: "i", values.sizes.map { .int32(Int32($0)) })
        case .selectedIndex: .uint32(UInt32(values.selectedIndex))
        case .selectedSize: .int32(Int32(values.selectedSize))
        case .shownIndex: .uint32(UInt32(values.shownIndex))
        case .shownSize: .int32(Int32(values.shownSize))
        case .previewing: .boolean(values.previewing)
        case .valueText: .string(values.valueText)
        case .valueTexts: .stringArray(values.valueTexts)
        case .label: .string(values.label)
        case .trackWidth: .double(values.trackWidth)
        case .trackInset: .double(values.trackInset)
        case .layout: .string(values.layout)
        case .changedBy: values.changedBy.value
        case .configProblems: .stringArray(values.configProblems)
        case .canUndo: .boolean(values.canUndo)
        case .canRedo: .boolean(values.canRedo)
        case .lastChangeKind: .string(values.lastChangeKind)
        case .stateFile: .string(values.stateFile)
        case .stateSaving: .string(values.stateSaving)
        }
    }

    /// Sets this property of `state` from its wire value; false (and `state` untouched) when the
    /// value does not have this property's type.
    public func decode(_ value: DBusValue, into state: inout SelectorState) -> Bool {
        switch self {
        case .sizes:
            guard case .array("i", let elements) = value else { return false }
            let sizes = elements.compactMap(\.asInt32)
            guard sizes.count == elements.count else { return false }
            state.sizes = sizes.map(Int.init)
        case .selectedIndex:
            guard let v = value.asUInt32 else { return false }; state.selectedIndex = Int(v)
        case .selectedSize:
            guard let v = value.asInt32 else { return false }; state.selectedSize = Int(v)
        case .shownIndex: guard let v = value.asUInt32 else { return false }; state.shownIndex = Int(v)
        case .shownSize: guard let v = value.asInt32 else { return false }; state.shownSize = Int(v)
        case .previewing: guard let v = value.asBool else { return false }; state.previewing = v
        case .valueText: guard let v = value.asString else { return false }; state.valueText = v
        case .valueTexts: guard let v = value.asStringArray else { return false }; state.valueTexts = v
        case .label: guard let v = value.asString else { return false }; state.label = v
        case .trackWidth: guard let v = value.asDouble else { return false }; state.trackWidth = v
        case .trackInset: guard let v = value.asDouble else { return false }; state.trackInset = v
        case .layout: guard let v = value.asString else { return false }; state.layout = v
        case .changedBy: guard let v = ClientIdentity(value) else { return false }; state.changedBy = v
        case .configProblems:
            guard let v = value.asStringArray else { return false }; state.configProblems = v
        case .canUndo: guard let v = value.asBool else { return false }; state.canUndo = v
        case .canRedo: guard let v = value.asBool else { return false }; state.canRedo = v
        case .lastChangeKind:
            guard let v = value.asString else { return false }; state.lastChangeKind = v
        case .stateFile: guard let v = value.asString else { return false }; state.stateFile = v
        case .stateSaving: guard let v = value.asString else { return false }; state.stateSaving = v
        }
        return true
    }
}

extension Property {
    /// The row for `property`, with the contract's name, signature and change annotation.
    public init(_ property: SelectorProperty, get: @escaping () -> DBusValue) {
        self.init(
            property.name, signature: property.signature, emitsChange: SelectorProperty.emitsChange,
            get: get)
    }
}
