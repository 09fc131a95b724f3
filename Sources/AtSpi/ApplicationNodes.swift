import DBusKit

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
