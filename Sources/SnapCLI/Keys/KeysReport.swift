import SnapTexts

/// `snapsizectl keys` in words: the suggested keys with what holds them, then how to add them on each
/// desktop, in that desktop's own spelling of the keys.
enum KeysReport {
    static func plain(_ plan: KeyPlan, checked: Bool, why: String) -> String {
        var text = tr("Suggested keys:") + "\n"
        let rows = plan.items.map { item -> (String, String, String) in
            let status =
                !checked
                ? tr("not checked: %s", why)
                : item.isTaken
                    ? tr("taken by %s", item.holderText)
                    : item.applied ? tr("set in GNOME") : tr("free")
            return (item.accelerator.spoken, item.command, item.action.purpose + "; " + status)
        }
        text += table(rows)
        for action in plan.missing where action.subcommand == nil {
            text +=
                "  " + tr("(%s is not installed: no key for the panel)", KeyAction.panelProgram) + "\n"
        }
        text +=
            "\n"
            + tr(
                """
                GNOME: 'snapsizectl keys --apply' adds them as custom shortcuts (Settings, Keyboard, View and
                Customise Shortcuts, Custom Shortcuts shows them); --remove takes them out again; --key
                focus=Super+Alt+G chooses another key.
                """) + "\n\n"
        text +=
            tr(
                """
                KDE Plasma: System Settings, Keyboard, Shortcuts, Add New, Command or Script (Plasma 5: System
                Settings, Shortcuts, Custom Shortcuts, Edit, New, Global Shortcut, Command/URL); enter the command,
                then press the key. Plasma keeps them in ~/.config/kglobalshortcutsrc.
                """) + "\n"
        text += table(plan.items.map { ($0.accelerator.kde, $0.command, "") })
        text +=
            "\n"
            + tr(
                """
                sway (~/.config/sway/config) and i3 (~/.config/i3/config, where exec --no-startup-id is usual),
                then swaymsg reload or i3-msg reload:
                """) + "\n"
        text += plan.items.map { "  bindsym \($0.accelerator.xkb) exec \($0.command)\n" }.joined()
        return text
    }

    /// Columns padded to the widest entry (counted in characters, as a terminal shows them).
    private static func table(_ rows: [(String, String, String)]) -> String {
        let first = (rows.map(\.0.count).max() ?? 0) + 3
        let second = (rows.map(\.1.count).max() ?? 0) + 3
        return rows.map { row in
            let line =
                "  " + row.0 + String(repeating: " ", count: first - row.0.count) + row.1
                + (row.2.isEmpty ? "" : String(repeating: " ", count: second - row.1.count) + row.2)
            return line + "\n"
        }.joined()
    }
}
