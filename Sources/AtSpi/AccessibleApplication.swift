import DBusKit

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

/// The accessible application on one accessibility-bus connection: the root, its frame (first
/// child) holding the slider, its status bar (second child, see StatusBar.swift) and the cache object
/// (CacheInterface.swift).
///
///     root ── [0] frame ── [0] slider
///          └─ [1] status bar ── [0] notification ── [0] label It lives exactly as long as that connection; a new connection gets a new one.
public final class AccessibleApplication {
    let connection: Connection
    let source: SliderSource
    let info: ApplicationInfo
    private(set) lazy var root = RootNode(app: self)
    private(set) lazy var frame = FrameNode(app: self)
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
    func ref(_ path: ObjectPath) -> AccessibleRef {
        AccessibleRef(name: connection.uniqueName, path: path)
    }

    /// Exports every object. The Application interface must answer before Embed is sent,
    /// because the registry sets our Id while handling Embed.
    public func export() throws(MethodError) {
        try connection.export(
            path: AtspiPaths.root,
            interfaces: [
                AccessibleInterface.table(for: root), ApplicationInterface.table(for: self)
            ])
        try connection.export(
            path: AtspiPaths.frame, interfaces: [AccessibleInterface.table(for: frame)])
        try connection.export(
            path: AtspiPaths.slider,
            interfaces: [
                AccessibleInterface.table(for: slider), ValueInterface.table(for: source),
                ActionInterface.table(for: source), ComponentInterface.table(for: self)
            ])
        try connection.export(
            path: AtspiPaths.statusBar, interfaces: [AccessibleInterface.table(for: statusBar)])
        try connection.export(
            path: AtspiPaths.notification, interfaces: [AccessibleInterface.table(for: notification)])
        try connection.export(
            path: AtspiPaths.notificationLabel,
            interfaces: [AccessibleInterface.table(for: notificationLabel)])
        try connection.export(path: AtspiPaths.cache, interfaces: [CacheInterface.table])
    }

    /// A person asked for the slider: claim screen-reader focus (state first, then the event,
    /// because Orca checks the state set when the event arrives: the slider FOCUSED, its frame
    /// ACTIVE). Never called on our own.
    ///
    /// From then on the slider follows the desktop: the first focus event of another application
    /// ends its focus. The match rule goes to the bus before our event, so every focus event sent
    /// after ours reaches us; it is removed again when focus is lost, so an unfocused daemon is
    /// never woken by the desktop's focus changes.
    public func grabFocus() {
        if focusWatch == nil {
            connection.addMatch(Self.focusRule)
            focusWatch = connection.onSignal(
                interface: ObjectEvents.object.rawValue, member: "StateChanged"
            ) {
                [unowned self] signal in self.someoneFocused(signal)
            }
        }
        isFocused = true
        ObjectEvents.stateChanged(on: connection, path: AtspiPaths.slider, state: "focused", on: true)
    }

    static let focusRule =
        "type='signal',interface='\(ObjectEvents.object.rawValue)',member='StateChanged',arg0='focused'"

    /// `object:state-changed:focused` with detail1 1 from another application: it has focus now.
    private func someoneFocused(_ signal: SignalMessage) {
        guard isFocused, signal.sender != connection.uniqueName, signal.arguments.count >= 2,
            signal.arguments[0].asString == "focused", signal.arguments[1].asInt32 == 1
        else { return }
        isFocused = false
        if let focusWatch { connection.cancel(focusWatch) }
        focusWatch = nil
        connection.removeMatch(Self.focusRule)
        ObjectEvents.stateChanged(on: connection, path: AtspiPaths.slider, state: "focused", on: false)
        // Not the active window any more (for clients' state caches; Orca has moved on already).
        ObjectEvents.stateChanged(on: connection, path: AtspiPaths.frame, state: "active", on: false)
        onFocusLost?()
    }

    /// The shown value changed: clients re-read CurrentValue, Text and the valuetext attribute.
    public func valueChanged() {
        ObjectEvents.valueChanged(on: connection, path: AtspiPaths.slider, value: source.indexValue)
    }

    /// The slider's name changed (`SliderSource.label`): `object:property-change:accessible-name`.
    public func nameChanged() {
        ObjectEvents.propertyChange(
            on: connection, path: AtspiPaths.slider, property: "accessible-name",
            value: .string(source.label))
    }

    /// The slider's description changed: `object:property-change:accessible-description`.
    public func descriptionChanged() {
        ObjectEvents.propertyChange(
            on: connection, path: AtspiPaths.slider, property: "accessible-description",
            value: .string(source.choicesDescription))
    }

    /// A polite `object:announcement` (Orca 45+) from the slider.
    public func announce(_ text: String) {
        ObjectEvents.announcement(on: connection, path: AtspiPaths.slider, text: text)
    }

    /// Says `text` through the status bar's notification (Orca 43): the label's name changes first
    /// (libatspi would otherwise serve the old name from its cache), then the notification's `showing` 1.
    public func notify(_ text: String) {
        notificationText = text
        ObjectEvents.propertyChange(
            on: connection, path: AtspiPaths.notificationLabel, property: "accessible-name",
            value: .string(text))
        ObjectEvents.stateChanged(
            on: connection, path: AtspiPaths.notification, state: "showing", on: true)
    }
}
