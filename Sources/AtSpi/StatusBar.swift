import DBusKit

/// The application's status bar: where the daemon says what changed when the slider's own value
/// event would not be spoken (Orca 43 speaks value changes only for its locus of focus).
///
/// Orca 43 speaks an accessible of role NOTIFICATION when it sends `object:state-changed:showing`
/// (detail1 1), whatever has focus, without moving its locus of focus. Inside a STATUS_BAR it leaves
/// out the role word ("notification"), so a person hears just the text. The text is the LABEL
/// child's name, and the notification has none: Orca 43 speaks the label, and keeps it in its
/// notification history only when it differs from the notification's name (with both named, every
/// history entry was empty). (Measured with Orca 43 under Xvfb; OrcaTests checks both.)
/// The frame holding the slider stays the root's first child.
///
///     root ── [0] frame ── [0] slider
///          └─ [1] status bar ── [0] notification ── [0] label (name: the last text said)
final class StatusNode: AccessibleNode {
    unowned let app: AccessibleApplication
    let role: Role
    let parentPath: ObjectPath
    let childPath: ObjectPath?
    let indexInParent: Int32
    let accessibleId: String
    /// Whether the name is the text last said (the label) or empty.
    let namedByText: Bool

    init(
        app: AccessibleApplication, role: Role, parent: ObjectPath, child: ObjectPath?, index: Int32,
        id: String, namedByText: Bool
    ) {
        self.app = app
        self.role = role
        parentPath = parent
        childPath = child
        indexInParent = index
        accessibleId = id
        self.namedByText = namedByText
    }

    var name: String { namedByText ? app.notificationText : "" }
    var accessibleDescription: String { "" }
    var parent: AccessibleRef { app.ref(parentPath) }
    var children: [AccessibleRef] { childPath.map { [app.ref($0)] } ?? [] }
    /// Never empty: Orca drops every event from an object with an empty state set.
    var states: StateSet { [.visible, .showing] }
    var attributes: [String: String] { [:] }
    var interfaces: [String] { [AccessibleInterface.name] }
    var application: AccessibleRef { app.rootRef }

    static func statusBar(_ app: AccessibleApplication) -> StatusNode {
        StatusNode(
            app: app, role: .statusBar, parent: AtspiPaths.root, child: AtspiPaths.notification,
            index: 1,
            id: "status", namedByText: false)
    }

    static func notification(_ app: AccessibleApplication) -> StatusNode {
        StatusNode(
            app: app, role: .notification, parent: AtspiPaths.statusBar,
            child: AtspiPaths.notificationLabel,
            index: 0, id: "notification", namedByText: false)
    }

    static func label(_ app: AccessibleApplication) -> StatusNode {
        StatusNode(
            app: app, role: .label, parent: AtspiPaths.notification, child: nil, index: 0,
            id: "notification-label", namedByText: true)
    }
}
