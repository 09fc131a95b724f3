import DBusKit

/// AT-SPI roles used here (numbers from atspi-constants.h / Accessible.xml).
public enum Role: UInt32, Sendable {
    case frame = 23
    case label = 29
    case slider = 51
    case statusBar = 54
    case application = 75
    case notification = 101

    /// The unlocalized role name libatspi would print.
    var name: String {
        switch self {
        case .frame: "frame"
        case .label: "label"
        case .slider: "slider"
        case .statusBar: "status bar"
        case .application: "application"
        case .notification: "notification"
        }
    }
}

/// An AT-SPI state set: state N is bit N of a 64-bit value.
public struct StateSet: OptionSet, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let active = StateSet(rawValue: 1 << 1)
    public static let enabled = StateSet(rawValue: 1 << 8)
    public static let focusable = StateSet(rawValue: 1 << 11)
    public static let focused = StateSet(rawValue: 1 << 12)
    public static let horizontal = StateSet(rawValue: 1 << 14)
    public static let sensitive = StateSet(rawValue: 1 << 24)
    public static let showing = StateSet(rawValue: 1 << 25)
    public static let visible = StateSet(rawValue: 1 << 30)

    /// Exactly two uint32 words, low word first: libatspi treats any other length as an EMPTY
    /// set, and Orca drops every event from an object with an empty state set.
    var words: DBusValue {
        .array(
            elementSignature: "u",
            [.uint32(UInt32(truncatingIfNeeded: rawValue)), .uint32(UInt32(rawValue >> 32))])
    }
}

/// What every accessible object answers through org.a11y.atspi.Accessible.
protocol AccessibleNode: AnyObject {
    var name: String { get }
    var accessibleDescription: String { get }
    var parent: AccessibleRef { get }
    var children: [AccessibleRef] { get }
    var indexInParent: Int32 { get }
    var role: Role { get }
    var states: StateSet { get }
    var attributes: [String: String] { get }
    /// Every interface the object answers; pyatspi's query* and Orca trust only this list (cached for life).
    var interfaces: [String] { get }
    var application: AccessibleRef { get }
    var accessibleId: String { get }
}

/// org.a11y.atspi.Accessible (at-spi2-core 2.46 xml/Accessible.xml) as a table over a node.
public enum AccessibleInterface {
    public static let name = "org.a11y.atspi.Accessible"

    static func table(for node: AccessibleNode) -> InterfaceTable {
        let ref = "(so)"
        return InterfaceTable(
            name,
            methods: [
                Method(
                    "GetChildAtIndex", inputs: [Argument("index", "i")],
                    outputs: [Argument("child", ref)]
                ) {
                    [unowned node] call throws(MethodError) in
                    let index = Int(try call.int32(0)), children = node.children
                    guard children.indices.contains(index) else {
                        throw MethodError(
                            .invalidArgs, "No child at index \(index); the object has \(children.count)")
                    }
                    return [children[index].value]
                },
                Method("GetChildren", outputs: [Argument("children", "a(so)")]) {
                    [unowned node] _ throws(MethodError) in
                    [.array(elementSignature: ref, node.children.map(\.value))]
                },
                Method("GetIndexInParent", outputs: [Argument("index", "i")]) {
                    [unowned node] _ throws(MethodError) in
                    [.int32(node.indexInParent)]
                },
                Method("GetRelationSet", outputs: [Argument("relations", "a(ua(so))")]) {
                    _ throws(MethodError) in
                    [.array(elementSignature: "(ua(so))", [])]
                },
                Method("GetRole", outputs: [Argument("role", "u")]) {
                    [unowned node] _ throws(MethodError) in
                    [.uint32(node.role.rawValue)]
                },
                Method("GetRoleName", outputs: [Argument("name", "s")]) {
                    [unowned node] _ throws(MethodError) in
                    [.string(node.role.name)]
                },
                // No translations: Orca 43 composes its own role words ("horizontal slider").
                Method("GetLocalizedRoleName", outputs: [Argument("name", "s")]) {
                    [unowned node] _ throws(MethodError) in
                    [.string(node.role.name)]
                },
                Method("GetState", outputs: [Argument("states", "au")]) {
                    [unowned node] _ throws(MethodError) in
                    [node.states.words]
                },
                Method("GetAttributes", outputs: [Argument("attributes", "a{ss}")]) {
                    [unowned node] _ throws(MethodError) in
                    [.stringStringDict(node.attributes)]
                },
                Method("GetApplication", outputs: [Argument("application", ref)]) {
                    [unowned node] _ throws(MethodError) in
                    [node.application.value]
                },
                Method("GetInterfaces", outputs: [Argument("interfaces", "as")]) {
                    [unowned node] _ throws(MethodError) in
                    [.stringArray(node.interfaces)]
                }
            ],
            properties: [
                // AT-SPI announces changes with its own events (ObjectEvents.swift), never PropertiesChanged.
                Property("Name", signature: "s", emitsChange: .false) { [unowned node] in
                    .string(node.name)
                },
                Property("Description", signature: "s", emitsChange: .false) { [unowned node] in
                    .string(node.accessibleDescription)
                },
                Property("Parent", signature: ref, emitsChange: .false) { [unowned node] in
                    node.parent.value
                },
                Property("ChildCount", signature: "i", emitsChange: .false) { [unowned node] in
                    .int32(Int32(node.children.count))
                },
                Property("Locale", signature: "s", emitsChange: .const) { .string(currentLocale()) },
                Property("AccessibleId", signature: "s", emitsChange: .const) { [unowned node] in
                    .string(node.accessibleId)
                }
            ])
    }

    /// The messages locale, as GTK reports it; "C" when none is configured.
    static func currentLocale() -> String {
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenvString(key), !value.isEmpty { return value }
        }
        return "C"
    }
}
