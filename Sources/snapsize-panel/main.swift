// The article's control on screen: a GTK 4 window drawing snapsized's selection (README, The panel).
import SnapPanel
#if canImport(Glibc)
    import Glibc
#endif

exit(MainActor.assumeIsolated { PanelApp.run(CommandLine.arguments) })
