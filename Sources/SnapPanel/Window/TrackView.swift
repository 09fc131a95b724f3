import CGtk
import GtkShim

/// A key on the focused track, as the panel acts on it.
enum TrackKey {
    /// One size larger (+1) or smaller (-1), committed at once as the buttons do.
    case step(Int)
    case first
    case last
}

/// The article's control: a track exactly `TrackWidth` wide, a tick per size where the daemon's layout
/// puts it, and a thumb of radius `TrackInset` at the shown index. Takes focus; the drag gesture and the
/// keys go out as `DragAction`s and `TrackKey`s, and what it draws comes back from the daemon.
@MainActor
final class TrackView {
    /// The track's height, the article's: the thumb's centre line at half of it.
    static let height = 40.0
    /// The bar under the ticks (the article's capsule) and the ticks' radius.
    static let barHeight = 4.0
    static let tickRadius = 2.5

    let widget: UnsafeMutablePointer<GtkWidget>
    private let drag: OpaquePointer
    private var rules: DragRules
    var onAction: (DragAction) -> Void = { _ in }
    var onKey: (TrackKey) -> Void = { _ in }
    var onFocus: (Bool) -> Void = { _ in }
    /// Called at the end of each frame that drew the track (GSK's render of the window done), with the
    /// index the thumb was drawn at: the trace's "frame" lines. Set before the window is shown.
    var onFrame: ((Int) -> Void)? {
        didSet { if onFrame != nil, oldValue == nil { followFrames() } }
    }
    /// The thumb index drawn since the last frame ended, if the track was drawn.
    private var drawnIndex: Int?

    private var trackWidth = 336.0
    private var inset = 12.0
    private var ticks: [Double] = []
    private var thumbIndex = 0

    init(grab: GrabMode) {
        rules = DragRules(mode: grab)
        widget = shim_track_new()
        gtk_widget_set_focusable(widget, 1)
        gtk_widget_set_halign(widget, GTK_ALIGN_CENTER)
        gtk_widget_set_hexpand(widget, 0)
        drag = shim_gesture(UnsafeMutableRawPointer(gtk_gesture_drag_new()))!
        gtk_gesture_single_set_button(
            shim_gesture_single(UnsafeMutableRawPointer(drag)), UInt32(GDK_BUTTON_PRIMARY))
        gtk_widget_add_controller(widget, shim_controller(UnsafeMutableRawPointer(drag)))
        gtk_drawing_area_set_draw_func(
            shim_drawing_area(widget),
            { _, cairo, _, _, data in
                MainActor.assumeIsolated { TrackView.from(data).draw(cairo!) }
            }, context, nil)
        // The standard track until the daemon gives its own, so a window shown before its answer is laid out.
        gtk_drawing_area_set_content_width(shim_drawing_area(widget), Int32(trackWidth))
        gtk_drawing_area_set_content_height(shim_drawing_area(widget), Int32(Self.height))
        connectPointer()
        connectKeys()
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    private static func from(_ data: UnsafeMutableRawPointer?) -> TrackView {
        Unmanaged<TrackView>.fromOpaque(data!).takeUnretainedValue()
    }

    var rightToLeft: Bool { gtk_widget_get_direction(widget) == GTK_TEXT_DIR_RTL }
    private var geometry: DragRules.Geometry { .init(trackWidth: trackWidth, rightToLeft: rightToLeft) }
    var isDragging: Bool { rules.isDragging }
    /// The time stamp of the pointer event being handled (for the trace).
    var eventTime: UInt32 {
        gtk_event_controller_get_current_event_time(shim_controller(UnsafeMutableRawPointer(drag)))
    }

    /// The daemon's track, ticks (daemon x) and the index to draw the thumb at.
    func show(trackWidth: Double, inset: Double, ticks: [Double], thumbIndex: Int) {
        if trackWidth != self.trackWidth || inset != self.inset {
            self.trackWidth = trackWidth
            self.inset = inset
        }
        gtk_drawing_area_set_content_width(shim_drawing_area(widget), Int32(trackWidth.rounded(.up)))
        gtk_drawing_area_set_content_height(shim_drawing_area(widget), Int32(Self.height))
        guard ticks != self.ticks || thumbIndex != self.thumbIndex else { return }
        self.ticks = ticks
        self.thumbIndex = thumbIndex
        gtk_widget_queue_draw(widget)
    }

    /// Ends a drag whose preview the daemon refused: nothing more is sent for it (DragRules.abandon).
    func abandonDrag() { rules.abandon() }

    /// Cancels a drag in progress (Escape, focus lost, hidden): GTK then reports the gesture's cancel.
    func cancelDrag() {
        guard rules.isDragging else { return }
        gtk_event_controller_reset(shim_controller(UnsafeMutableRawPointer(drag)))
    }

    private func connectPointer() {
        shim_on_point(
            UnsafeMutableRawPointer(drag), "drag-begin",
            { _, x, _, data in
                MainActor.assumeIsolated { TrackView.from(data).begin(x) }
            }, context)
        shim_on_point(
            UnsafeMutableRawPointer(drag), "drag-update",
            { _, dx, _, data in
                MainActor.assumeIsolated {
                    let view = TrackView.from(data)
                    view.rules.update(offset: dx, geometry: view.geometry).map(view.onAction)
                }
            }, context)
        shim_on_point(
            UnsafeMutableRawPointer(drag), "drag-end",
            { _, dx, _, data in
                MainActor.assumeIsolated {
                    let view = TrackView.from(data)
                    let geometry = view.geometry
                    view.rules.end(offset: dx, geometry: geometry).map(view.onAction)
                }
            }, context)
        // A lost grab, or a reset (Escape, focus lost): GTK sends cancel before the drag's end.
        shim_on_cancel(
            UnsafeMutableRawPointer(drag),
            { _, _, data in
                MainActor.assumeIsolated {
                    let view = TrackView.from(data)
                    view.rules.cancel().map(view.onAction)
                }
            }, context)
    }

    private func begin(_ x: Double) {
        gtk_widget_grab_focus(widget)
        let thumb = ticks.indices.contains(thumbIndex) ? ticks[thumbIndex] : trackWidth / 2
        let thumbX = TrackPosition.widgetX(
            daemonX: thumb, trackWidth: trackWidth, rightToLeft: rightToLeft)
        if let action = rules.begin(widgetX: x, thumbX: thumbX, radius: inset, geometry: geometry) {
            onAction(action)
        } else {
            // Thumb mode, a press off the thumb: not this gesture's; other widgets may have it.
            gtk_gesture_set_state(drag, GTK_EVENT_SEQUENCE_DENIED)
        }
    }

    private func connectKeys() {
        let keys = gtk_event_controller_key_new()!
        shim_on_key(
            UnsafeMutableRawPointer(keys),
            { _, keyval, _, _, data in
                MainActor.assumeIsolated { TrackView.from(data).key(keyval) ? 1 : 0 }
            }, context)
        gtk_widget_add_controller(widget, keys)
        let focus = gtk_event_controller_focus_new()!
        shim_on_void(
            UnsafeMutableRawPointer(focus), "enter",
            { _, data in
                MainActor.assumeIsolated { TrackView.from(data).focusChanged(true) }
            }, context)
        shim_on_void(
            UnsafeMutableRawPointer(focus), "leave",
            { _, data in
                MainActor.assumeIsolated { TrackView.from(data).focusChanged(false) }
            }, context)
        gtk_widget_add_controller(widget, focus)
    }

    private func focusChanged(_ focused: Bool) {
        if !focused { cancelDrag() }
        gtk_widget_queue_draw(widget)  // the focus ring
        onFocus(focused)
    }

    /// Left/Right follow the track's direction (on a right-to-left track Left is larger, as on GtkScale);
    /// Down/Up are smaller/larger; Home/End the ends; Escape cancels a drag. Other keys go on to GTK (Tab).
    private func key(_ keyval: guint) -> Bool {
        let forward: Int32 = rightToLeft ? GDK_KEY_Left : GDK_KEY_Right
        let backward: Int32 = rightToLeft ? GDK_KEY_Right : GDK_KEY_Left
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape:
            guard rules.isDragging else { return false }
            cancelDrag()
            return true
        case _ where rules.isDragging:
            return true  // no steps while the pointer holds a preview
        case forward, GDK_KEY_Up, GDK_KEY_KP_Up, rightToLeft ? GDK_KEY_KP_Left : GDK_KEY_KP_Right:
            onKey(.step(1))
        case backward, GDK_KEY_Down, GDK_KEY_KP_Down, rightToLeft ? GDK_KEY_KP_Right : GDK_KEY_KP_Left:
            onKey(.step(-1))
        case GDK_KEY_Home, GDK_KEY_KP_Home:
            onKey(.first)
        case GDK_KEY_End, GDK_KEY_KP_End:
            onKey(.last)
        default:
            return false
        }
        return true
    }

    private func draw(_ cairo: OpaquePointer) {
        let colors = ThemeColors(of: widget)
        let mid = Self.height / 2
        let rtl = rightToLeft
        func x(_ daemonX: Double) -> Double {
            TrackPosition.widgetX(daemonX: daemonX, trackWidth: trackWidth, rightToLeft: rtl)
        }
        // The bar, between the thumb's two extreme centres.
        cairo.setSource(colors.foreground, alpha: 0.35)
        cairo_rectangle(cairo, inset, mid - Self.barHeight / 2, trackWidth - 2 * inset, Self.barHeight)
        cairo_fill(cairo)
        cairo.setSource(colors.foreground)
        for tick in ticks {
            cairo_arc(cairo, x(tick), mid, Self.tickRadius, 0, 2 * Double.pi)
            cairo_fill(cairo)
        }
        if ticks.indices.contains(thumbIndex) {
            cairo.setSource(colors.accent)
            // Half a line inside the radius, so the outline at an end tick stays within the track.
            cairo_arc(cairo, x(ticks[thumbIndex]), mid, inset - 0.5, 0, 2 * Double.pi)
            cairo_fill_preserve(cairo)
            // An outline in the text colour keeps the thumb visible on any accent (high contrast).
            cairo.setSource(colors.foreground)
            cairo_set_line_width(cairo, 1)
            cairo_stroke(cairo)
        }
        if gtk_widget_has_visible_focus(widget) != 0 {
            cairo.setSource(colors.foreground)
            cairo_set_line_width(cairo, 1)
            let dash = [2.0, 2.0]
            cairo_set_dash(cairo, dash, 2, 0)
            cairo_rectangle(cairo, 0.5, 0.5, trackWidth - 1, Self.height - 1)
            cairo_stroke(cairo)
        }
        drawnIndex = thumbIndex
    }

    /// The draw function runs while GTK records the window's frame, before the renderer draws it: the
    /// frame is reported from the frame clock's after-paint, once it has been drawn.
    private func followFrames() {
        shim_on_void(
            widget, "realize",
            { _, data in
                MainActor.assumeIsolated {
                    let view = TrackView.from(data)
                    shim_on_void(
                        UnsafeMutableRawPointer(gtk_widget_get_frame_clock(view.widget)), "after-paint",
                        { _, data in
                            MainActor.assumeIsolated { TrackView.from(data).frameEnded() }
                        }, data)
                }
            }, context)
    }

    private func frameEnded() {
        guard let index = drawnIndex else { return }
        drawnIndex = nil
        onFrame?(index)
    }
}
