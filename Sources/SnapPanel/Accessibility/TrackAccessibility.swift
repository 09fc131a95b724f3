import CGtk
import GtkShim

/// How a screen reader hears the track. GTK 4.8 exports no Value interface for a custom widget (4.10's
/// GtkAccessibleRange does), so the track is a slider with a name (the daemon's Label) and, as its
/// description, the current size in the daemon's words: focusing it is heard as "Circle size slider.
/// 60 points." Each change is spoken by the daemon (its announcement, in its language), once.
///
/// Orca speaks a description change of the object that has its focus (onDescriptionChanged), which
/// would say every change a second time; so the description is brought up to date only while the track
/// is not focused, never while it has it. When it loses focus, the update waits for GTK's next idle
/// round: by then the widget taking focus has sent its focus event, ahead of the description change on
/// the same connection, and Orca's focus has moved on (measured: updated at once, Orca 43 said the new
/// size again as Tab left the track).
@MainActor
final class TrackAccessibility {
    private let track: UnsafeMutablePointer<GtkWidget>
    private var label = ""
    /// The size the description should say, and the one it says.
    private var wanted = ""
    private var described: String?

    init(track: UnsafeMutablePointer<GtkWidget>) { self.track = track }

    var focused = false {
        didSet {
            guard !focused, oldValue else { return }
            g_idle_add(
                { data in
                    MainActor.assumeIsolated {
                        Unmanaged<TrackAccessibility>.fromOpaque(data!).takeUnretainedValue().update()
                    }
                    return 0  // G_SOURCE_REMOVE
                }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    func show(label: String, valueText: String) {
        if label != self.label {
            self.label = label
            shim_a11y_label(track, label)
        }
        wanted = valueText
        update()
    }

    private func update() {
        guard !focused, described != wanted else { return }
        described = wanted
        shim_a11y_description(track, wanted)
    }
}
