import CGtk
import GtkShim
import SnapTexts
#if canImport(Glibc)
    import Glibc
#endif

/// `snapsize-panel [--grab track|thumb] [--trace]`: the window on GTK's main loop, until it is closed.
/// Without GtkApplication: it would own a second name on the session bus and needs none here.
public enum PanelApp {
    /// The program's name: GTK 4.8 names the AT-SPI application after it (unset, "Unnamed").
    public static let programName = "snapsize-panel"

    /// Runs the panel; returns the exit status.
    @MainActor
    public static func run(_ arguments: [String]) -> Int32 {
        var grab = GrabMode.track
        var trace = false
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--grab":
                guard let value = rest.popFirst(), let mode = GrabMode(rawValue: value) else {
                    return usage(failed: true)
                }
                grab = mode
            case "--trace": trace = true
            case "--help", "-h": return usage(failed: false)
            default: return usage(failed: true)
            }
        }
        g_set_prgname(programName)
        gtk_init()
        let loop = g_main_loop_new(nil, 0)
        let panel = PanelWindow(grab: grab, trace: Trace(enabled: trace)) { g_main_loop_quit(loop) }
        panel.open()
        g_main_loop_run(loop)
        withExtendedLifetime(panel) {}
        return 0
    }

    private static func usage(failed: Bool) -> Int32 {
        let text = PanelTexts.summary + "\n\n" + PanelTexts.usage(programName) + "\n"
        if failed {
            _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
            return 64  // EX_USAGE, as snapsizectl
        }
        print(text, terminator: "")
        return 0
    }
}
