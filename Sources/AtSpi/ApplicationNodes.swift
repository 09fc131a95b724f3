import DBusKit

/// The application root: role application; its frame (holding the slider), then its status bar.
final class RootNode: AccessibleNode {
    unowned let app: AccessibleApplication
    init(app: AccessibleApplication) { self.app = app }
    var name: String { app.info.name }
    var accessibleDescription: String { "" }
    var parent: AccessibleRef { app.desktop }
    /// The frame first: clients (and tests) find the slider as its first child.
    var children: [AccessibleRef] { [app.ref(AtspiPaths.frame), app.ref(AtspiPaths.statusBar)] }
    /// -1 as GTK does; Orca exempts applications from its "index -1 is a zombie" rule.
    var indexInParent: Int32 { -1 }
    var role: Role { .application }
    var states: StateSet { [.visible, .showing] }
    var attributes: [String: String] { [:] }
    var interfaces: [String] { [AccessibleInterface.name, ApplicationInterface.name] }
    var application: AccessibleRef { app.desktop }
    var accessibleId: String { "" }
}

/// The slider's window. Orca 48 keeps as its locus of focus only an object inside a top-level
/// window (frame, dialog, window) that is active; without one it drops the slider right after
/// `Focus()`, ignores its value events, and leaves the braille line made at focus time (with the old
/// value) on the display. So the slider lives in a frame that is ACTIVE exactly while the slider is
/// focused (Orca 43 accepts a focus inside a frame only while the frame is active, too).
///
/// The frame sends no `window:activate` and no `state-changed:active` 1: both make Orca present the
/// frame itself ("frame") and move its locus there before the slider. Orca reads the state set
/// afresh when the slider's focus event arrives (Orca 48 clears its cache for that check), so the
/// ACTIVE state alone is enough. Its name is empty, so nothing is said for it, and it has no
/// Component interface: see ComponentInterface for what magnifiers get.
final class FrameNode: AccessibleNode {
    unowned let app: AccessibleApplication
    init(app: AccessibleApplication) { self.app = app }
    var name: String { "" }
    var accessibleDescription: String { "" }
    var parent: AccessibleRef { app.rootRef }
    var children: [AccessibleRef] { [app.sliderRef] }
    var indexInParent: Int32 { 0 }
    var role: Role { .frame }
    var states: StateSet {
        var states: StateSet = [.enabled, .sensitive, .visible, .showing]
        if app.isFocused { states.insert(.active) }
        return states
    }
    var attributes: [String: String] { [:] }
    var interfaces: [String] { [AccessibleInterface.name] }
    var application: AccessibleRef { app.rootRef }
    var accessibleId: String { "frame" }
}

/// The slider, the frame's only child.
final class SliderNode: AccessibleNode {
    unowned let app: AccessibleApplication
    init(app: AccessibleApplication) { self.app = app }
    var name: String { app.source.label }
    var accessibleDescription: String { app.source.choicesDescription }
    var parent: AccessibleRef { app.ref(AtspiPaths.frame) }
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
        [
            "valuetext": app.source.valueText, "size": String(app.source.shownSize),
            "committed-size": String(app.source.committedSize)
        ]
    }
    var interfaces: [String] {
        [AccessibleInterface.name, ActionInterface.name, ComponentInterface.name, ValueInterface.name]
    }
    var application: AccessibleRef { app.rootRef }
    var accessibleId: String { "slider" }
}
