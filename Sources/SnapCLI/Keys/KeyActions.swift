import SnapTexts

/// What a suggested key does: a `snapsizectl` command, or the panel. The suggested keys are GNOME's
/// free ones: none is a default of its keybinding schemas on Debian 12 or 13 (gsettings-desktop-schemas,
/// gnome-settings-daemon, mutter, gnome-shell; KeysTests reads the installed schemas). Super+Alt+S,
/// the old guide's focus key, is GNOME's screen reader toggle; Super+Alt+Up and Down move the overview.
struct KeyAction: Sendable {
    /// The word for `--key ACTION=...` and the custom binding's path (`snapsize-inc/`).
    let name: String
    /// The `snapsizectl` subcommand it runs; nil for the panel, which is a program of its own.
    let subcommand: String?
    let suggested: Accelerator
    /// What it does, for the person.
    let purpose: String

    static let panelProgram = "snapsize-panel"

    static var all: [KeyAction] {
        [
            KeyAction(
                name: "inc", subcommand: "inc",
                suggested: Accelerator(modifiers: [.superKey, .alt], key: "Page_Up"),
                purpose: tr("one size larger")),
            KeyAction(
                name: "dec", subcommand: "dec",
                suggested: Accelerator(modifiers: [.superKey, .alt], key: "Page_Down"),
                purpose: tr("one size smaller")),
            KeyAction(
                name: "undo", subcommand: "undo",
                suggested: Accelerator(modifiers: [.superKey, .alt], key: "z"),
                purpose: tr("back to the size before the last change")),
            KeyAction(
                name: "focus", subcommand: "focus",
                suggested: Accelerator(modifiers: [.superKey, .alt], key: "f"),
                purpose: tr("the screen reader reads the slider")),
            KeyAction(
                name: "panel", subcommand: nil,
                suggested: Accelerator(modifiers: [.superKey, .alt], key: "p"),
                purpose: tr("opens the snapsize panel"))
        ]
    }

    /// The custom keybinding's path in GNOME's settings; what marks a binding as snapsize's.
    var gnomePath: String { GSettings.customFolder + KeyAction.pathPrefix + name + "/" }
    static let pathPrefix = "snapsize-"

    /// The name GNOME Settings shows for it.
    var gnomeName: String { "snapsize " + name }
}

/// The programs the keys run, as a command line a desktop can start: by name when they are installed
/// where every session finds them (/usr/bin), otherwise by full path (`make install` puts them in
/// ~/.local/bin, which a desktop session's PATH may lack; a build tree has them beside each other).
struct KeyPrograms {
    let snapsizectl: String
    /// nil when snapsize-panel is installed neither beside snapsizectl nor on PATH.
    let panel: String?

    static func current(environment: [String: String]) -> KeyPrograms {
        let executable = Installation.executablePath() ?? "/usr/bin/snapsizectl"
        let folder = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
        let byName = folder == "/usr/bin"
        let beside = folder + "/" + KeyAction.panelProgram
        let panel: String? =
            if Subprocess.find(beside, environment: environment) != nil {
                byName ? KeyAction.panelProgram : beside
            } else {
                Subprocess.find(KeyAction.panelProgram, environment: environment)
            }
        return KeyPrograms(snapsizectl: byName ? "snapsizectl" : executable, panel: panel)
    }

    /// The command line that `action` runs; nil for the panel when it is not installed.
    func command(_ action: KeyAction) -> String? {
        if let subcommand = action.subcommand { return Self.shellWord(snapsizectl) + " " + subcommand }
        return panel.map(Self.shellWord)
    }

    /// A path as one word for GNOME (g_shell_parse_argv), sway and i3 (sh -c).
    static func shellWord(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@%,=".contains($0) }
        return plain
            ? text
            : "'"
                + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
                + "'"
    }
}
