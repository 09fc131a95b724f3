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

    public init(sizes: [Int], selectedIndex: Int, selectedSize: Int, shownIndex: Int, shownSize: Int,
                previewing: Bool, valueText: String, valueTexts: [String], label: String, trackWidth: Double,
                trackInset: Double, layout: String, changedBy: ClientIdentity = .unknown) {
        self.changedBy = changedBy
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
        SelectorState(sizes: [], selectedIndex: 0, selectedSize: 0, shownIndex: 0, shownSize: 0, previewing: false,
                      valueText: "", valueTexts: [], label: "", trackWidth: 0, trackInset: 0, layout: "")
    }

    /// Reads a GetAll reply (`a{sv}`); every property must be there with its type.
    public init(getAll body: [DBusValue]) throws(MethodError) {
        guard body.count == 1, let properties = body[0].asStringDict else { throw unexpectedReply(to: "GetAll", body) }
        var state = SelectorState.empty
        for property in SelectorProperty.allCases {
            guard let value = properties[property.name], property.decode(value, into: &state) else {
                throw unexpectedReply(to: "GetAll (\(property.name))", body)
            }
        }
        self = state
    }

    /// Applies a PropertiesChanged announcement.
    public mutating func apply(_ change: SelectorChange) {
        if let value = change.selectedIndex { selectedIndex = value }
        if let value = change.selectedSize { selectedSize = value }
        if let value = change.shownIndex { shownIndex = value }
        if let value = change.shownSize { shownSize = value }
        if let value = change.previewing { previewing = value }
        if let value = change.valueText { valueText = value }
        if let value = change.changedBy { changedBy = value }
    }
}

/// What one PropertiesChanged announced; nil means "not in this announcement".
public struct SelectorChange: Equatable, Sendable {
    public var selectedIndex: Int?
    public var selectedSize: Int?
    public var shownIndex: Int?
    public var shownSize: Int?
    public var previewing: Bool?
    public var valueText: String?
    /// Announced only when a different client (or none) made this change than the one before.
    public var changedBy: ClientIdentity?

    public init(selectedIndex: Int? = nil, selectedSize: Int? = nil, shownIndex: Int? = nil, shownSize: Int? = nil,
                previewing: Bool? = nil, valueText: String? = nil, changedBy: ClientIdentity? = nil) {
        self.changedBy = changedBy
        self.selectedIndex = selectedIndex
        self.selectedSize = selectedSize
        self.shownIndex = shownIndex
        self.shownSize = shownSize
        self.previewing = previewing
        self.valueText = valueText
    }

    /// Reads the changed properties (`a{sv}`) of a PropertiesChanged; values of another type are left out.
    public init(changed properties: [String: DBusValue]) {
        var decoded = SelectorState.empty
        var present: Set<SelectorProperty> = []
        for (name, value) in properties {
            if let property = SelectorProperty(rawValue: name), property.decode(value, into: &decoded) {
                present.insert(property)
            }
        }
        func pick<T>(_ property: SelectorProperty, _ value: T) -> T? { present.contains(property) ? value : nil }
        self.init(selectedIndex: pick(.selectedIndex, decoded.selectedIndex),
                  selectedSize: pick(.selectedSize, decoded.selectedSize),
                  shownIndex: pick(.shownIndex, decoded.shownIndex), shownSize: pick(.shownSize, decoded.shownSize),
                  previewing: pick(.previewing, decoded.previewing), valueText: pick(.valueText, decoded.valueText),
                  changedBy: pick(.changedBy, decoded.changedBy))
    }
}
