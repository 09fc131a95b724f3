/// The one mapping from where GTK reports the pointer to the x the daemon snaps: its track coordinates
/// (0 at the track's start, `TrackWidth` at its end), in which the daemon's Preview and Commit take x.
public enum TrackPosition {
    /// The grid x is rounded to: 1/1024 of a point. GTK reports pointer positions as floats widened to
    /// doubles (x = 250 arrives as 249.99998474121094, 90 as 89.99999237060547), and at an exact
    /// midpoint between two ticks (51 on the article's track) an error of 1e-5 would flip the index.
    /// A power of two, so every rounded x is exact in a double and a midpoint stays a midpoint.
    public static let grid = 1024.0

    /// x on the grid; a value that is not finite is passed on as it is (the daemon refuses it, by name).
    public static func rounded(_ x: Double) -> Double {
        guard x.isFinite else { return x }
        return (x * grid).rounded(.toNearestOrAwayFromZero) / grid
    }

    /// The daemon's x for a widget x: mirrored on a right-to-left track (Arabic), where the first size
    /// is at the right end as GtkScale puts it, then rounded.
    public static func daemonX(widgetX: Double, trackWidth: Double, rightToLeft: Bool) -> Double {
        rounded(rightToLeft ? trackWidth - widgetX : widgetX)
    }

    /// The widget x where a daemon x is drawn (the same mirror: its own inverse).
    public static func widgetX(daemonX: Double, trackWidth: Double, rightToLeft: Bool) -> Double {
        rightToLeft ? trackWidth - daemonX : daemonX
    }
}
