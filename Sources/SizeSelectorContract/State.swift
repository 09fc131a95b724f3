import DBusKit

/// Everything `GetAll` reports about the selection, as a client holds it.
public struct SelectorState: SelectorValues, Equatable, Sendable {
    public var sizes: [Int]
    public var selectedIndex: Int
    public var selectedSize: Int
    public var shownIndex: Int
    public var shownSize: Int
    public var previewing: Bool
    public var valueText: String
    public var valueTexts: [String]
    public var label: String
    public var trackWidth: Double
    public var trackInset: Double
    public var layout: String
    public var changedBy: ClientIdentity
    public var configProblems: [String]
    public var canUndo: Bool
    public var canRedo: Bool
    public var lastChangeKind: String
    public var stateFile: String
    public var stateSaving: String

    public init(
        sizes: [Int], selectedIndex: Int, selectedSize: Int, shownIndex: Int, shownSize: Int,
        previewing: Bool, valueText: String, valueTexts: [String], label: String, trackWidth: Double,
        trackInset: Double, layout: String, changedBy: ClientIdentity = .unknown,
        configProblems: [String] = [],
        canUndo: Bool = false, canRedo: Bool = false, lastChangeKind: String = "",
        stateFile: String = "",
        stateSaving: String = ""
    ) {
        self.stateFile = stateFile
        self.stateSaving = stateSaving
        self.changedBy = changedBy
        self.configProblems = configProblems
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.lastChangeKind = lastChangeKind
        self.sizes = sizes
        self.selectedIndex = selectedIndex
        self.selectedSize = selectedSize
        self.shownIndex = shownIndex
        self.shownSize = shownSize
        self.previewing = previewing
        self.valueText = valueText
        self.valueTexts = valueTexts
        self.label = label
        self.trackWidth = trackWidth
        self.trackInset = trackInset
        self.layout = layout
    }

    /// Zeros and empty strings: what the decoders start from.
    public static var empty: SelectorState {
        SelectorState(
            sizes: [], selectedIndex: 0, selectedSize: 0, shownIndex: 0, shownSize: 0, previewing: false,
            valueText: "", valueTexts: [], label: "", trackWidth: 0, trackInset: 0, layout: "")
    }

    /// Reads a GetAll reply (`a{sv}`); every property must be there with its type.
    public init(getAll body: [DBusValue]) throws(MethodError) {
        guard body.count == 1, let properties = body[0].asStringDict else {
            throw unexpectedReply(to: "GetAll", body)
        }
        var state = SelectorState.empty
        for property in SelectorProperty.allCases {
            guard let value = properties[property.name], property.decode(value, into: &state) else {
                throw unexpectedReply(to: "GetAll (\(property.name))", body)
            }
        }
        self = state
    }

    /// Applies a PropertiesChanged announcement: every property it carries (a reload's list, track,
    /// layout and words as well as the selection), each through the property's own decoder.
    public mutating func apply(_ change: SelectorChange) {
        for (property, value) in change.values {
            _ = property.decode(value, into: &self)
        }
    }
}

/// What one PropertiesChanged announced: each announced property of the contract with its wire
/// value (only values of the property's type are kept). The typed views are nil for a property
/// not in this announcement.
public struct SelectorChange: Equatable, Sendable {
    public let values: [SelectorProperty: DBusValue]

    /// Reads the changed properties (`a{sv}`) of a PropertiesChanged; values of another type and
    /// names the contract does not know are left out.
    public init(changed properties: [String: DBusValue]) {
        var scratch = SelectorState.empty
        var values: [SelectorProperty: DBusValue] = [:]
        for (name, value) in properties {
            if let property = SelectorProperty(rawValue: name), property.decode(value, into: &scratch) {
                values[property] = value
            }
        }
        self.values = values
    }

    /// An announcement of the given values (each encoded as the daemon encodes it): for tests and fakes.
    @_spi(Testing) public init(
        sizes: [Int]? = nil, selectedIndex: Int? = nil, selectedSize: Int? = nil, shownIndex: Int? = nil,
        shownSize: Int? = nil, previewing: Bool? = nil, valueText: String? = nil,
        valueTexts: [String]? = nil,
        label: String? = nil, trackWidth: Double? = nil, trackInset: Double? = nil,
        layout: String? = nil,
        changedBy: ClientIdentity? = nil, canUndo: Bool? = nil, canRedo: Bool? = nil,
        lastChangeKind: String? = nil
    ) {
        var state = SelectorState.empty
        var present: [SelectorProperty] = []
        func set<T>(
            _ property: SelectorProperty, _ field: WritableKeyPath<SelectorState, T>, _ value: T?
        ) {
            guard let value else { return }
            state[keyPath: field] = value
            present.append(property)
        }
        set(.sizes, \.sizes, sizes)
        set(.selectedIndex, \.selectedIndex, selectedIndex)
        set(.selectedSize, \.selectedSize, selectedSize)
        set(.shownIndex, \.shownIndex, shownIndex)
        set(.shownSize, \.shownSize, shownSize)
        set(.previewing, \.previewing, previewing)
        set(.valueText, \.valueText, valueText)
        set(.valueTexts, \.valueTexts, valueTexts)
        set(.label, \.label, label)
        set(.trackWidth, \.trackWidth, trackWidth)
        set(.trackInset, \.trackInset, trackInset)
        set(.layout, \.layout, layout)
        set(.changedBy, \.changedBy, changedBy)
        set(.canUndo, \.canUndo, canUndo)
        set(.canRedo, \.canRedo, canRedo)
        set(.lastChangeKind, \.lastChangeKind, lastChangeKind)
        values = Dictionary(uniqueKeysWithValues: present.map { ($0, $0.encode(state)) })
    }

    /// Whether this announcement carries `property`.
    public func announces(_ property: SelectorProperty) -> Bool { values[property] != nil }

    /// The announced value of `property`, read by its decoder as `field` of a state.
    private func value<T>(_ property: SelectorProperty, _ field: KeyPath<SelectorState, T>) -> T? {
        guard let value = values[property] else { return nil }
        var state = SelectorState.empty
        return property.decode(value, into: &state) ? state[keyPath: field] : nil
    }

    public var sizes: [Int]? { value(.sizes, \.sizes) }
    public var selectedIndex: Int? { value(.selectedIndex, \.selectedIndex) }
    public var selectedSize: Int? { value(.selectedSize, \.selectedSize) }
    public var shownIndex: Int? { value(.shownIndex, \.shownIndex) }
    public var shownSize: Int? { value(.shownSize, \.shownSize) }
    public var previewing: Bool? { value(.previewing, \.previewing) }
    public var valueText: String? { value(.valueText, \.valueText) }
    public var valueTexts: [String]? { value(.valueTexts, \.valueTexts) }
    public var label: String? { value(.label, \.label) }
    public var trackWidth: Double? { value(.trackWidth, \.trackWidth) }
    public var trackInset: Double? { value(.trackInset, \.trackInset) }
    public var layout: String? { value(.layout, \.layout) }
    /// Announced when a different client (or none) made this change than the one before, and alone
    /// once the daemon has learned the process of a client it named by its bus name alone.
    public var changedBy: ClientIdentity? { value(.changedBy, \.changedBy) }
    public var canUndo: Bool? { value(.canUndo, \.canUndo) }
    public var canRedo: Bool? { value(.canRedo, \.canRedo) }
    /// Announced with every change of the committed size: what kind it was ("undo", "step"...).
    public var lastChangeKind: String? { value(.lastChangeKind, \.lastChangeKind) }
}
