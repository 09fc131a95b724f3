import CGtk
import GtkShim

/// The article's circle, drawn at the committed size (its diameter in points), centred in a square
/// that holds the largest size. An image to assistive technologies, named with its size in words.
@MainActor
final class CircleView {
    let widget: UnsafeMutablePointer<GtkWidget>
    private(set) var diameter = 0
    private var name = ""

    init() {
        widget = shim_drawing_area_new(GTK_ACCESSIBLE_ROLE_IMG)
        gtk_widget_set_halign(widget, GTK_ALIGN_CENTER)
        gtk_drawing_area_set_draw_func(
            shim_drawing_area(widget),
            { area, cairo, width, height, data in
                MainActor.assumeIsolated {
                    Unmanaged<CircleView>.fromOpaque(data!).takeUnretainedValue().draw(
                        cairo!, Double(width), Double(height))
                }
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// Shows `diameter` (the committed size); `largest` sizes the square; `name` is read by screen readers.
    func show(diameter: Int, largest: Int, name: String) {
        let side = Int32(clamping: max(120, largest + 8))
        gtk_drawing_area_set_content_width(shim_drawing_area(widget), side)
        gtk_drawing_area_set_content_height(shim_drawing_area(widget), side)
        if name != self.name {
            self.name = name
            shim_a11y_label(widget, name)
        }
        guard diameter != self.diameter else { return }
        self.diameter = diameter
        gtk_widget_queue_draw(widget)
    }

    private func draw(_ cairo: OpaquePointer, _ width: Double, _ height: Double) {
        guard diameter > 0 else { return }
        cairo.setSource(ThemeColors(of: widget).accent)
        cairo_arc(cairo, width / 2, height / 2, Double(diameter) / 2, 0, 2 * Double.pi)
        cairo_fill(cairo)
    }
}
