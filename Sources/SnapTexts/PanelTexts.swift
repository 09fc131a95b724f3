/// The words of `snapsize-panel`, the article's control on screen. The sizes themselves are always the
/// daemon's value texts ("60 points"), never composed here.
public enum PanelTexts {
    /// The window's title and the application's name in the desktop's list (snapsize-panel.desktop).
    public static var title: String { tr("Size selector") }

    /// What the application does, one line (the .desktop Comment and `--help`).
    public static var summary: String {
        tr("Choose the circle size: drag the thumb and let go, or use the arrow keys")
    }

    /// Above the track, following the thumb: "Selected size: 60 points".
    public static func selected(_ valueText: String) -> String {
        // TRANSLATORS: %s is the size the thumb shows, e.g. "60 points" (the article's "Selected size: 60 pt").
        tr("Selected size: %s", valueText)
    }

    /// Below the buttons, following the circle: "Applied size: 60 points".
    public static func applied(_ valueText: String) -> String {
        // TRANSLATORS: %s is the committed size, the circle's, e.g. "60 points" (the article's "Applied size: 60 pt").
        tr("Applied size: %s", valueText)
    }

    /// The circle's accessible name: "Circle, 60 points".
    public static func circle(_ valueText: String) -> String {
        // TRANSLATORS: the accessible name of the drawn circle; %s is its size, e.g. "60 points".
        tr("Circle, %s", valueText)
    }

    /// Another program holds a preview: "Preview held by snapsizectl drag (pid 4242)".
    public static func previewHeld(by client: String) -> String {
        // TRANSLATORS: %s is a program and its process id, e.g. "snapsizectl drag (pid 4242)".
        tr("Preview held by %s", client)
    }

    /// The daemon left the bus (stopped or crashed); the window follows it when it is back.
    public static var daemonStopped: String {
        tr("snapsized stopped; the window follows it again when it is back.")
    }

    /// The daemon could not be reached or started: why (the bus's error), and what to do.
    public static func daemonUnreachable(_ why: String) -> String {
        // TRANSLATORS: %s is the bus's reason, e.g. "org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable".
        tr(
            "snapsized is not running and could not be started (%s). Install the snapsize package, or run "
                + "'snapsizectl doctor' to see what is wrong.", why)
    }

    /// There is no session bus at all.
    public static func noSessionBus(_ why: String) -> String {
        tr("There is no session bus to find snapsized on (%s).", why)
    }

    /// `--help`.
    public static func usage(_ program: String) -> String {
        // TRANSLATORS: --grab's choices are typed as they are: track, thumb.
        tr(
            "USAGE: %s [--grab track|thumb]\n  --grab thumb  only a press on the thumb drags it, keeping where it was taken "
                + "hold of;\n                by default a press anywhere on the track jumps there.",
            program)
    }
}
