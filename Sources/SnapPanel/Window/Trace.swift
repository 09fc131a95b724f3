import CGtk
import GtkShim
import DBusKit

/// `--trace`: one line on stdout per event, for the tests and the benchmark, which drive the window with
/// a real pointer and must know where the track is and when a frame showed what. Machine words, never
/// translated. Off by default.
@MainActor
final class Trace {
    let enabled: Bool
    private var reportedTrack = ""
    private var window: UnsafeMutablePointer<GtkWidget>?
    private var track: UnsafeMutablePointer<GtkWidget>?

    init(enabled: Bool) {
        self.enabled = enabled
        if enabled { shim_line_buffered_stdout() }
    }

    private func line(_ text: String) {
        guard enabled else { return }
        print(text)
    }

    /// `value`: the track has an AT-SPI Value (GTK 4.10+), else the size is its description (GTK 4.8).
    func started(
        window: UnsafeMutablePointer<GtkWidget>, track: UnsafeMutablePointer<GtkWidget>, value: Bool
    ) {
        self.window = window
        self.track = track
        line("accessible " + (value ? "value" : "description"))
    }

    /// At the end of each frame that drew the track (the renderer done): its thumb index and the
    /// monotonic time in microseconds, preceded, whenever it moved or changed size, by "track X Y WIDTH
    /// HEIGHT": its rectangle in the window's surface (X11 window) coordinates, where xdotool's
    /// `mousemove --window` points.
    func frame(thumbIndex: Int) {
        guard enabled else { return }
        if let window, let track, let native = gtk_widget_get_native(track) {
            var x = 0.0, y = 0.0, surfaceX = 0.0, surfaceY = 0.0
            _ = gtk_widget_translate_coordinates(track, window, 0, 0, &x, &y)
            gtk_native_get_surface_transform(native, &surfaceX, &surfaceY)
            let rectangle =
                "track \(Int(x + surfaceX)) \(Int(y + surfaceY)) \(gtk_widget_get_width(track)) \(gtk_widget_get_height(track))"
            if rectangle != reportedTrack { line(rectangle) }
            reportedTrack = rectangle
        }
        line("frame \(thumbIndex) \(g_get_monotonic_time())")
    }

    /// What the window shows after a state from the daemon; `smaller`/`larger`: the buttons' sensitivity.
    func state(_ view: PanelView, smaller: Bool, larger: Bool) {
        let state = view.state
        line(
            "state shown=\(state.shownIndex) selected=\(state.selectedIndex) previewing=\(state.previewing) "
                + "smaller=\(smaller) larger=\(larger) holder=\(view.holderNotice != nil)")
    }

    /// The daemon is gone, or could not be reached: the D-Bus error name ("vanished" for a stop).
    func problem(_ name: String) {
        line("problem \(name)")
    }

    /// A pointer position the track turned into a preview (the press or a motion while dragging):
    /// "motion EVENT_MS MICROSECONDS", the X server's time stamp of the event (milliseconds; Xvfb's
    /// clock is the monotonic one) and the monotonic time GTK delivered it. `make bench` pairs it with
    /// the frame that shows its thumb.
    func motion(eventTime: @autoclosure () -> UInt32) {
        guard enabled else { return }
        line("motion \(eventTime()) \(g_get_monotonic_time())")
    }

    func sent(_ member: String, _ x: Double?) {
        line("call \(member)" + (x.map { " \($0)" } ?? ""))
    }

    func refused(_ name: String) {
        line("error \(name)")
    }
}
