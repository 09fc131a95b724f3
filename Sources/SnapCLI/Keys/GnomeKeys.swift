import SnapTexts

/// The keys a GNOME session holds now, read through GSettings: the defaults and changes of every
/// installed schema with key bindings (window manager, shell, media keys...), and the custom shortcuts.
struct GnomeKeys {
    /// One custom shortcut (Settings → Keyboard → Custom Shortcuts).
    struct Custom {
        let path: String
        var name = ""
        var command = ""
        var binding = ""
    }

    /// Who holds an accelerator: a key of a GNOME schema, or a custom shortcut.
    enum Holder: Equatable {
        case setting(schema: String, key: String)
        case custom(path: String, name: String, command: String)

        /// For the person: "GNOME's screenreader key (org.gnome.settings-daemon.plugins.media-keys)".
        var description: String {
            switch self {
            case .setting(let schema, let key):
                // TRANSLATORS: who holds a key: a GNOME setting, e.g. "GNOME's screenreader key (org.gnome.settings-daemon.plugins.media-keys)".
                tr("GNOME's %1$s key (%2$s)", key, schema)
            case .custom(_, let name, let command):
                // TRANSLATORS: who holds a key: a custom shortcut's name and command, e.g. "the custom shortcut 'Terminal' (gnome-terminal)".
                tr("the custom shortcut '%1$s' (%2$s)", Texts.printable(name), Texts.printable(command))
            }
        }

        var customPath: String? {
            if case .custom(let path, _, _) = self { return path }
            return nil
        }

        var json: JSON {
            switch self {
            case .setting(let schema, let key):
                .object([("schema", .string(schema)), ("key", .string(key))])
            case .custom(let path, let name, let command):
                .object([("path", .string(path)), ("name", .string(name)), ("command", .string(command))]
                )
            }
        }
    }

    /// The custom-keybindings list as it is, in its order.
    let customPaths: [String]
    let customs: [Custom]
    let held: [Accelerator: [Holder]]

    static func read(_ settings: GSettings) throws(GSettings.Unavailable) -> GnomeKeys {
        var held: [Accelerator: [Holder]] = [:]
        var customPaths: [String] = []
        for entry in try settings.list() {
            if entry.schema == GSettings.mediaKeys, entry.key == GSettings.customKey {
                customPaths = GVariantText.strings(entry.value) ?? []
                continue
            }
            // A keybinding schema's keys, or any value spelled like a GTK accelerator.
            guard
                Texts.contains(entry.schema, "keybindings") || Texts.contains(entry.schema, "media-keys")
                    || entry.value.contains("<"),
                let values = GVariantText.strings(entry.value)
            else { continue }
            for value in values {
                guard let accelerator = Accelerator(value) else { continue }
                held[accelerator, default: []].append(.setting(schema: entry.schema, key: entry.key))
            }
        }
        var customs: [Custom] = []
        for path in customPaths {
            var custom = Custom(path: path)
            // A path GSettings refuses (one without the trailing slash) holds no key it would run.
            for entry in (try? settings.list(GSettings.customSchema + ":" + path)) ?? [] {
                let value = GVariantText.strings(entry.value)?.first ?? ""
                switch entry.key {
                case "name": custom.name = value
                case "command": custom.command = value
                case "binding": custom.binding = value
                default: break
                }
            }
            customs.append(custom)
            if let accelerator = Accelerator(custom.binding) {
                held[accelerator, default: []].append(
                    .custom(path: path, name: custom.name, command: custom.command))
            }
        }
        return GnomeKeys(customPaths: customPaths, customs: customs, held: held)
    }

    func custom(at path: String) -> Custom? { customs.first { $0.path == path } }
}
