import DBusKit

/// What the accessible slider shows, and the only two ways it may change it.
///
/// The adapter keeps no copy of the value: every read goes through here, so the slider can never
/// disagree with the owner of the selection. The value is an *index* (0 … maximumIndexValue);
/// rounding and clamping a written value are the owner's business, not the adapter's.
public protocol SliderSource: AnyObject {
    /// The accessible name ("Circle size").
    var label: String { get }
    /// The accessible description ("One of 20, 40, 60, 80, 100 points").
    var choicesDescription: String { get }
    /// The shown index as the Value interface's CurrentValue.
    var indexValue: Double { get }
    var minimumIndexValue: Double { get }
    var maximumIndexValue: Double { get }
    /// What a screen reader speaks for the shown value ("60 points").
    var valueText: String { get }
    /// The actions' localized names and descriptions ("Larger", "Selects the next larger size").
    var largerAction: (name: String, description: String) { get }
    var smallerAction: (name: String, description: String) { get }
    var shownSize: Int { get }
    var committedSize: Int { get }
    /// Width of the track in pixels, used as the Component extents.
    var trackWidth: Double { get }
    /// Commits the index nearest to `value`; false when refused (nothing changed then).
    func setIndexValue(_ value: Double) -> Bool
    /// Steps the committed index; false when refused or already at that end.
    func step(by steps: Int) -> Bool
}

/// Who the application is, for the root object and the Application interface.
public struct ApplicationInfo: Sendable {
    public var name: String
    /// Must not be the name of an Orca script ("gtk", "Qt", "GAIL", "Gecko"…), or Orca loads it.
    public var toolkitName: String
    public var version: String

    public init(name: String, toolkitName: String, version: String) {
        self.name = name
        self.toolkitName = toolkitName
        self.version = version
    }
}

/// Fixed names and paths of the AT-SPI2 protocol.
public enum AtspiPaths {
    /// Every application's root object must live here (libatspi special-cases this path).
    public static let root = ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!
    public static let slider = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!
    public static let statusBar = ObjectPath(rawValue: "/org/a11y/atspi/accessible/status")!
    public static let notification = ObjectPath(rawValue: "/org/a11y/atspi/accessible/status/notification")!
    public static let notificationLabel = ObjectPath(rawValue: "/org/a11y/atspi/accessible/status/notification/label")!
    public static let cache = ObjectPath(rawValue: "/org/a11y/atspi/cache")!
    public static let null = ObjectPath(rawValue: "/org/a11y/atspi/null")!
    public static let registryName = "org.a11y.atspi.Registry"
}

/// An AT-SPI object reference `(so)`: always the connection's UNIQUE name, never a well-known one,
/// because libatspi keys applications by the sender of events.
public struct AccessibleRef: Equatable, Sendable {
    public var name: String
    public var path: ObjectPath

    public init(name: String, path: ObjectPath) {
        self.name = name
        self.path = path
    }

    public static let null = AccessibleRef(name: "", path: AtspiPaths.null)
    public var value: DBusValue { .structure([.string(name), .objectPath(path)]) }

    init?(_ value: DBusValue) {
        guard let members = value.asStructure, members.count == 2, let name = members[0].asString,
              let path = members[1].asObjectPath else { return nil }
        self.init(name: name, path: path)
    }
}

/// The accessible application on one accessibility-bus connection: the root, its slider (first
/// child), its status bar (second child, see StatusBar.swift) and the cache object. Lives exactly as long as that connection; a new connection gets a new one.
public final class AccessibleApplication {
    let connection: Connection
    let source: SliderSource
    let info: ApplicationInfo
    private(set) lazy var root = RootNode(app: self)
    private(set) lazy var slider = SliderNode(app: self)
    private(set) lazy var statusBar = StatusNode.statusBar(self)
    private(set) lazy var notification = StatusNode.notification(self)
    private(set) lazy var notificationLabel = StatusNode.label(self)
    /// Set by the registry during Embed (`Properties.Set Application.Id`).
    var id: Int32 = 0
    /// The registry's desktop, from the Embed reply: the root's parent.
    var desktop = AccessibleRef.null
    /// True from an explicit focus request until another application's object takes focus.
    public private(set) var isFocused = false
    /// Runs when the slider gave focus up because another application's object took it.
    public var onFocusLost: (() -> Void)?
    /// The last text said through the status bar's notification.
    private(set) var notificationText = ""
    /// While focused: the subscription to other applications' focus events.
    private var focusWatch: SubscriptionToken?

    public init(connection: Connection, source: SliderSource, info: ApplicationInfo) {
        self.connection = connection
        self.source = source
        self.info = info
    }

    var rootRef: AccessibleRef { AccessibleRef(name: connection.uniqueName, path: AtspiPaths.root) }
    var sliderRef: AccessibleRef { ref(AtspiPaths.slider) }
    func ref(_ path: ObjectPath) -> AccessibleRef { AccessibleRef(name: connection.uniqueName, path: path) }

    /// Exports every object. The Application interface must answer before Embed is sent,
    /// because the registry sets our Id while handling Embed.
    public func export() throws(MethodError) {
        try connection.export(path: AtspiPaths.root, interfaces: [
            AccessibleInterface.table(for: root), ApplicationInterface.table(for: self),
        ])
        try connection.export(path: AtspiPaths.slider, interfaces: [
            AccessibleInterface.table(for: slider), ValueInterface.table(for: source),
            ActionInterface.table(for: source), ComponentInterface.table(for: self),
        ])
        try connection.export(path: AtspiPaths.statusBar, interfaces: [AccessibleInterface.table(for: statusBar)])
        try connection.export(path: AtspiPaths.notification, interfaces: [AccessibleInterface.table(for: notification)])
        try connection.export(path: AtspiPaths.notificationLabel,
                              interfaces: [AccessibleInterface.table(for: notificationLabel)])
        try connection.export(path: AtspiPaths.cache, interfaces: [CacheInterface.table])
    }

    /// A person asked for the slider: claim screen-reader focus (state first, then the event,
    /// because Orca checks the state set when the event arrives). Never called on our own.
    ///
    /// From then on the slider follows the desktop: the first focus event of another application
    /// ends its focus. The match rule goes to the bus before our event, so every focus event sent
    /// after ours reaches us; it is removed again when focus is lost, so an unfocused daemon is
    /// never woken by the desktop's focus changes.
    public func grabFocus() {
        if focusWatch == nil {
            connection.addMatch(Self.focusRule)
            focusWatch = connection.onSignal(interface: Events.object.rawValue, member: "StateChanged") {
                [unowned self] signal in self.someoneFocused(signal)
            }
        }
        isFocused = true
        Events.stateChanged(on: connection, path: AtspiPaths.slider, state: "focused", on: true)
    }

    static let focusRule = "type='signal',interface='\(Events.object.rawValue)',member='StateChanged',arg0='focused'"

    /// `object:state-changed:focused` with detail1 1 from another application: it has focus now.
    private func someoneFocused(_ signal: SignalMessage) {
        guard isFocused, signal.sender != connection.uniqueName, signal.arguments.count >= 2,
              signal.arguments[0].asString == "focused", signal.arguments[1].asInt32 == 1 else { return }
        isFocused = false
        if let focusWatch { connection.cancel(focusWatch) }
        focusWatch = nil
        connection.removeMatch(Self.focusRule)
        Events.stateChanged(on: connection, path: AtspiPaths.slider, state: "focused", on: false)
        onFocusLost?()
    }

    /// The shown value changed: clients re-read CurrentValue, Text and the valuetext attribute.
    public func valueChanged() {
        Events.valueChanged(on: connection, path: AtspiPaths.slider, value: source.indexValue)
    }

    /// The slider's name changed (`SliderSource.label`): `object:property-change:accessible-name`.
    public func nameChanged() {
        Events.propertyChange(on: connection, path: AtspiPaths.slider, property: "accessible-name",
                              value: .string(source.label))
    }

    /// The slider's description changed: `object:property-change:accessible-description`.
    public func descriptionChanged() {
        Events.propertyChange(on: connection, path: AtspiPaths.slider, property: "accessible-description",
                              value: .string(source.choicesDescription))
    }

    /// A polite `object:announcement` (Orca 45+) from the slider.
    public func announce(_ text: String) {
        Events.announcement(on: connection, path: AtspiPaths.slider, text: text)
    }

    /// Says `text` through the status bar's notification (Orca 43): the label's name changes first
    /// (libatspi would otherwise serve the old name from its cache), then the notification's `showing` 1.
    public func notify(_ text: String) {
        notificationText = text
        Events.propertyChange(on: connection, path: AtspiPaths.notificationLabel, property: "accessible-name",
                              value: .string(text))
        Events.stateChanged(on: connection, path: AtspiPaths.notification, state: "showing", on: true)
    }
}

/// The application root: role application, one child.
final class RootNode: AccessibleNode {
    unowned let app: AccessibleApplication
    init(app: AccessibleApplication) { self.app = app }
    var name: String { app.info.name }
    var accessibleDescription: String { "" }
    var parent: AccessibleRef { app.desktop }
    /// The slider first: clients (and tests) find it at index 0.
    var children: [AccessibleRef] { [app.sliderRef, app.ref(AtspiPaths.statusBar)] }
    /// -1 as GTK does; Orca exempts applications from its "index -1 is a zombie" rule.
    var indexInParent: Int32 { -1 }
    var role: Role { .application }
    var states: StateSet { [.visible, .showing] }
    var attributes: [String: String] { [:] }
    var interfaces: [String] { [AccessibleInterface.name, ApplicationInterface.name] }
    var application: AccessibleRef { app.desktop }
    var accessibleId: String { "" }
}

/// The slider child.
final class SliderNode: AccessibleNode {
    unowned let app: AccessibleApplication
    init(app: AccessibleApplication) { self.app = app }
    var name: String { app.source.label }
    var accessibleDescription: String { app.source.choicesDescription }
    var parent: AccessibleRef { app.rootRef }
    var children: [AccessibleRef] { [] }
    /// Must be 0, not -1: Orca refuses an object with index -1 as its focus ("zombie").
    var indexInParent: Int32 { 0 }
    var role: Role { .slider }
    var states: StateSet {
        var states: StateSet = [.enabled, .sensitive, .visible, .showing, .focusable, .horizontal]
        if app.isFocused { states.insert(.focused) }
        return states
    }
    var attributes: [String: String] {
        // Orca 43 speaks only `valuetext`; newer readers prefer it over Value.Text. Keep them equal.
        ["valuetext": app.source.valueText, "size": String(app.source.shownSize),
         "committed-size": String(app.source.committedSize)]
    }
    var interfaces: [String] {
        [AccessibleInterface.name, ActionInterface.name, ComponentInterface.name, ValueInterface.name]
    }
    var application: AccessibleRef { app.rootRef }
    var accessibleId: String { "slider" }
}
