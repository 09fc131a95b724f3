import DBusKit

/// org.a11y.atspi.Component: the slider's size for clients that ask (accerciser, dogtail) and GrabFocus.
///
/// There is no window, so the slider has no place on any screen: GetExtents and GetPosition answer
/// with an error, in every coordinate type. That is what keeps a magnifier still. GNOME Shell 43 and
/// later follow a focused object inside an ACTIVE frame (ours is, while focused) by adding its
/// window-relative extents to the rectangle of the window that really has focus, so any rectangle
/// we gave would move a low-vision user's zoomed view to a corner of the window they work in on every
/// `Focus()`; an error is caught and the view stays (js/ui/magnifier.js `_updateFocus`). GNOME Shell
/// 42 and Compiz, which read screen coordinates, ignore an error too. GetSize still answers.
enum ComponentInterface {
    static let name = "org.a11y.atspi.Component"
    static let height: Int32 = 40
    static let noPlace = "The slider has no window, so it has no place on the screen"
    /// ATSPI_LAYER_WIDGET.
    static let widgetLayer: UInt32 = 3

    static func table(for app: AccessibleApplication) -> InterfaceTable {
        let width = { [unowned app] in Int32(clamping: Int(app.source.trackWidth.rounded())) }
        let refused = { (_: MethodCall) throws(MethodError) -> [DBusValue] in [.boolean(false)] }
        return InterfaceTable(
            name,
            methods: [
                Method(
                    "Contains",
                    inputs: [Argument("x", "i"), Argument("y", "i"), Argument("coord_type", "u")],
                    outputs: [Argument("contains", "b")]
                ) { _ throws(MethodError) in
                    [.boolean(false)]  // no point of any screen is in it
                },
                Method(
                    "GetAccessibleAtPoint",
                    inputs: [Argument("x", "i"), Argument("y", "i"), Argument("coord_type", "u")],
                    outputs: [Argument("accessible", "(so)")]
                ) { _ throws(MethodError) in
                    [AccessibleRef.null.value]  // the slider has no children
                },
                Method(
                    "GetExtents", inputs: [Argument("coord_type", "u")],
                    outputs: [Argument("extents", "(iiii)")]
                ) { _ throws(MethodError) in
                    throw MethodError(.failed, noPlace)
                },
                Method(
                    "GetPosition", inputs: [Argument("coord_type", "u")],
                    outputs: [Argument("x", "i"), Argument("y", "i")]
                ) { _ throws(MethodError) in
                    throw MethodError(.failed, noPlace)
                },
                Method("GetSize", outputs: [Argument("width", "i"), Argument("height", "i")]) {
                    _ throws(MethodError) in
                    [.int32(width()), .int32(height)]
                },
                Method("GetLayer", outputs: [Argument("layer", "u")]) { _ throws(MethodError) in
                    [.uint32(widgetLayer)]
                },
                Method("GetMDIZOrder", outputs: [Argument("order", "n")]) { _ throws(MethodError) in
                    [.int16(0)]
                },
                // A person asked (e.g. accerciser's "grab focus"): same as the D-Bus Focus() method.
                Method("GrabFocus", outputs: [Argument("success", "b")]) {
                    [unowned app] _ throws(MethodError) in
                    app.grabFocus()
                    return [.boolean(true)]
                },
                Method("GetAlpha", outputs: [Argument("alpha", "d")]) { _ throws(MethodError) in
                    [.double(1)]
                },
                // Nothing to move or resize without a window.
                Method(
                    "SetExtents",
                    inputs: [
                        Argument("x", "i"), Argument("y", "i"), Argument("width", "i"),
                        Argument("height", "i"), Argument("coord_type", "u")
                    ],
                    outputs: [Argument("success", "b")], handler: refused),
                Method(
                    "SetPosition",
                    inputs: [Argument("x", "i"), Argument("y", "i"), Argument("coord_type", "u")],
                    outputs: [Argument("success", "b")], handler: refused),
                Method(
                    "SetSize", inputs: [Argument("width", "i"), Argument("height", "i")],
                    outputs: [Argument("success", "b")], handler: refused),
                Method(
                    "ScrollTo", inputs: [Argument("type", "u")], outputs: [Argument("success", "b")],
                    handler: refused),
                Method(
                    "ScrollToPoint",
                    inputs: [Argument("coord_type", "u"), Argument("x", "i"), Argument("y", "i")],
                    outputs: [Argument("success", "b")], handler: refused)
            ])
    }
}
