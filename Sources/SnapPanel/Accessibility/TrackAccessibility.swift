import CGtk
import GtkShim

/// How a screen reader hears the track, in one of two ways chosen by the GTK the panel runs on.
///
/// **GTK 4.10 and later** (Debian 13's 4.18): the track is a GtkAccessibleRange (`shim_track_new`), so it
/// has an AT-SPI Value: the *committed* index (minimum 0, maximum the last index), with the daemon's value
/// text ("60 points") as its Text, as the daemon's own slider has it. Orca presents it on focus and speaks
/// and brailles each value event of its focused object, so every commit is heard from the track itself and
/// its braille line is rewritten with the new size. A preview is not a value (a drag is heard at its
/// release). The daemon stays quiet meanwhile (docs/ACCESSIBILITY.md, "A panel that speaks").
///
/// **GTK 4.8** (Debian 12): no Value for a custom widget, so the track is a slider with a name (the
/// daemon's Label) and, as its description, the current size in the daemon's words: focusing it is heard
/// as "Circle size slider. 60 points." Each change is spoken by the daemon (its announcement), once.
/// Orca speaks a description change of the object that has its focus (onDescriptionChanged), which
/// would say every change a second time; so the description is brought up to date only while the track
/// is not focused, never while it has it. When it loses focus, the update waits for GTK's next idle
/// round: by then the widget taking focus has sent its focus event, ahead of the description change on
/// the same connection, and Orca's focus has moved on (measured: updated at once, Orca 43 said the new
/// size again as Tab left the track). While the window is inactive the description is empty: Orca 43
/// keeps the track as its focus when the window that took focus has no accessibility (xmessage, an
/// xterm), and would speak each new size beside the daemon; an empty description it does not speak
/// (default.py's onDescriptionChanged). When the window is active again the size is put back at once,
/// heard as part of the track's focus or right after it: "Circle size slider. 80 points."
@MainActor
final class TrackAccessibility {
    private let track: UnsafeMutablePointer<GtkWidget>
    /// The track has an AT-SPI Value (GTK 4.10+).
    let hasValue = shim_track_has_value() != 0
    private var label = ""
    /// The size the description should say, and the one it says (GTK 4.8).
    private var wanted = ""
    private var described: String?
    /// The range last given to GTK (GTK 4.10+): index, last index, text.
    private var range: (index: Int, last: Int, text: String)?

    init(track: UnsafeMutablePointer<GtkWidget>) { self.track = track }

    /// The window has the keyboard focus (GTK 4.8: an inactive window's track describes no size).
    var windowActive = true {
        didSet {
            guard !hasValue, windowActive != oldValue else { return }
            let text = windowActive ? wanted : ""
            guard described != text else { return }
            described = text
            shim_a11y_description(track, text)
        }
    }

    var focused = false {
        didSet {
            guard !hasValue, !focused, oldValue else { return }
            g_idle_add(
                { data in
                    MainActor.assumeIsolated {
                        Unmanaged<TrackAccessibility>.fromOpaque(data!).takeUnretainedValue().update()
                    }
                    return 0  // G_SOURCE_REMOVE
                }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// The daemon's label; its committed index of `last + 1` sizes with that size's value text (the
    /// Value); and the shown size's text (the description, GTK 4.8).
    func show(label: String, committed index: Int, last: Int, valueText: String, shownText: String) {
        if label != self.label {
            self.label = label
            shim_a11y_label(track, label)
        }
        if hasValue {
            // Only a real change: each update with a new current value is a value event Orca speaks.
            guard range?.index != index || range?.last != last || range?.text != valueText else {
                return
            }
            range = (index, last, valueText)
            shim_a11y_range(track, 0, Double(last), Double(index), valueText)
        } else {
            wanted = shownText
            update()
        }
    }

    private func update() {
        guard windowActive, !focused, described != wanted else { return }
        described = wanted
        shim_a11y_description(track, wanted)
    }
}
