import CGtk
import GtkShim

/// The colours the panel draws with, from the GTK theme of the widget (so the high-contrast theme and a
/// dark one work): the text colour for the track and ticks, the theme's accent for the thumb and circle.
struct ThemeColors {
    var foreground: GdkRGBA
    var accent: GdkRGBA

    /// The accent's names across GTK 4 themes: Adwaita's and the older theme_selected_bg_color (HighContrast).
    static let accentNames = ["accent_bg_color", "accent_color", "theme_selected_bg_color"]

    @MainActor
    init(of widget: UnsafeMutablePointer<GtkWidget>) {
        let context = gtk_widget_get_style_context(widget)
        var color = GdkRGBA(red: 0, green: 0, blue: 0, alpha: 1)
        gtk_style_context_get_color(context, &color)
        foreground = color
        var accent = GdkRGBA(red: 0.21, green: 0.52, blue: 0.89, alpha: 1)  // Adwaita's blue when a theme names none
        for name in Self.accentNames where gtk_style_context_lookup_color(context, name, &accent) != 0 {
            break
        }
        self.accent = accent
    }
}

extension OpaquePointer {
    /// cairo_set_source_rgba with a GdkRGBA, its alpha scaled by `alpha`.
    func setSource(_ color: GdkRGBA, alpha: Double = 1) {
        cairo_set_source_rgba(
            self, Double(color.red), Double(color.green), Double(color.blue), Double(color.alpha) * alpha
        )
    }
}
