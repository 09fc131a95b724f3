import Foundation
import Testing
import TestSupport

/// `snapsizectl keys` through the real program and the real `gsettings`, on a private keyfile GSettings
/// backend (GSETTINGS_BACKEND=keyfile, a private XDG_CONFIG_HOME): nothing reaches a desktop's dconf.
@Suite("snapsizectl keys", .serialized)
struct KeysTests {
    /// GNOME's keybinding schemas, from the packages the Makefile's KEYS_TEST_DEPS installs
    /// (gsettings-desktop-schemas, gnome-settings-daemon-common, mutter-common, gnome-shell-common).
    static let keybindingSchemas = [
        "org.gnome.desktop.wm.keybindings", "org.gnome.settings-daemon.plugins.media-keys",
        "org.gnome.mutter.keybindings", "org.gnome.mutter.wayland.keybindings",
        "org.gnome.shell.keybindings"
    ]

    /// A fresh settings folder: GSettings then reads every key's default (schema and vendor override).
    final class Settings {
        let folder: String
        let environment: [String: String]

        /// `schemas`: another system's compiled schemas (a Debian 13 root's), read instead of this machine's.
        init(path: String = "/usr/bin:/bin", schemas: String? = nil) throws {
            folder = try makeTemporaryDirectory()
            var environment = [
                "PATH": path, "HOME": folder, "XDG_CONFIG_HOME": folder, "GSETTINGS_BACKEND": "keyfile",
                "LANG": "C.UTF-8"
            ]
            if let schemas {
                // Only those: XDG_DATA_DIRS names a folder without schemas.
                environment["GSETTINGS_SCHEMA_DIR"] = schemas
                environment["XDG_DATA_DIRS"] = folder
            }
            self.environment = environment
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        var keyfile: String {
            (try? String(contentsOfFile: folder + "/glib-2.0/settings/keyfile", encoding: .utf8)) ?? ""
        }

        /// A copy of the built snapsizectl in a folder of its own: the build folder has snapsize-panel beside
        /// it, which would add the panel's key to every test; the panel's test puts one on PATH.
        var snapsizectl: String {
            get throws {
                let copy = folder + "/ctl/snapsizectl"
                if !FileManager.default.fileExists(atPath: copy) {
                    let built = try #require(productPath("snapsizectl"), "snapsizectl is not built")
                    try FileManager.default.createDirectory(
                        atPath: folder + "/ctl", withIntermediateDirectories: true)
                    // cp, not FileManager: a file this process has open for writing would be inherited by
                    // a child another test spawns meanwhile, and exec of it would fail (ETXTBSY).
                    let copied = try run(
                        "/bin/cp", [URL(fileURLWithPath: built).resolvingSymlinksInPath().path, copy],
                        environment: environment)
                    #expect(copied.status == 0, "cp: \(copied.stderr)")
                }
                return copy
            }
        }

        func ctl(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (
            status: Int32, stdout: String, stderr: String
        ) {
            try run(
                try snapsizectl, ["keys"] + arguments, environment: environment.merging(extra) { $1 })
        }

        @discardableResult
        func gsettings(_ arguments: String...) throws -> String {
            let result = try run("/usr/bin/gsettings", arguments, environment: environment)
            #expect(result.status == 0, "gsettings \(arguments): \(result.stderr)")
            return result.stdout
        }

        /// A custom shortcut of the person's own, as GNOME Settings writes one.
        func addCustom(
            _ folderName: String, name: String, command: String, binding: String, list: [String]
        ) throws {
            let schema =
                "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:"
                + customPath(folderName)
            try gsettings("set", schema, "name", name)
            try gsettings("set", schema, "command", command)
            try gsettings("set", schema, "binding", binding)
            try gsettings(
                "set", "org.gnome.settings-daemon.plugins.media-keys", "custom-keybindings",
                "[" + list.map { "'\(customPath($0))'" }.joined(separator: ", ") + "]")
        }

        func customPath(_ name: String) -> String {
            "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/\(name)/"
        }

        func customList() throws -> String {
            try gsettings("get", "org.gnome.settings-daemon.plugins.media-keys", "custom-keybindings")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func keys(_ json: String) throws -> [[String: Any]] {
        try #require(try parseJSONObject(json)["keys"] as? [[String: Any]], "\(json)")
    }

    /// An accelerator as a set of modifier names and the key, the way the test reads GNOME's values
    /// (independently of snapsizectl's parser): `<Alt><Super>s` and `<Super><Alt>S` are one key.
    static func normalized(_ accelerator: String) -> String? {
        var modifiers: [String] = []
        var rest = Substring(accelerator)
        while rest.first == "<", let close = rest.firstIndex(of: ">") {
            var name = rest[rest.index(after: rest.startIndex)..<close].lowercased()
            if name == "primary" || name == "ctrl" { name = "control" }
            if name == "mod4" { name = "super" }
            if name == "mod1" { name = "alt" }
            modifiers.append(name)
            rest = rest[rest.index(after: close)...]
        }
        guard !rest.isEmpty else { return nil }
        let aliases = ["prior": "page_up", "next": "page_down"]
        let key = aliases[rest.lowercased()] ?? rest.lowercased()
        return modifiers.sorted().joined(separator: "+") + "+" + key
    }

    /// This machine's schemas (Debian 12 here), or those of SNAPSIZE_DESKTOP_ROOT (`make test-orca48`'s
    /// Debian 13 chroot, or any root where the four packages are unpacked and glib-compile-schemas ran).
    static var schemaFolder: String? { DesktopRoot.path.map { $0 + "/usr/share/glib-2.0/schemas" } }

    @Test(
        "the suggested keys collide with no default of GNOME's keybinding schemas installed here (or in SNAPSIZE_DESKTOP_ROOT)"
    )
    func schemasCheck() throws {
        let settings = try Settings(schemas: Self.schemaFolder)
        let installed = Set(
            try settings.gsettings("list-schemas").split(separator: "\n").map(String.init))
        let absent = Self.keybindingSchemas.filter { !installed.contains($0) }
        #expect(absent.isEmpty, "schemas missing (install KEYS_TEST_DEPS: make deps): \(absent)")
        // Every value of the keybinding schemas, as GSettings gives it with nothing changed: the defaults
        // with the distribution's overrides.
        var defaults: [String: [String]] = [:]
        for schema in Self.keybindingSchemas where installed.contains(schema) {
            for line in try settings.gsettings("list-recursively", schema).split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 2)
                guard parts.count == 3 else { continue }
                // The quoted strings of `['<Super>Up', '<Alt>F5']` (accelerators hold no quote).
                let values = parts[2].split(separator: "'", omittingEmptySubsequences: false)
                    .enumerated()
                    .filter { $0.offset % 2 == 1 }.map { String($0.element) }
                for value in values {
                    if let key = Self.normalized(value) {
                        defaults[key, default: []].append("\(parts[0]) \(parts[1])")
                    }
                }
            }
        }
        #expect(
            defaults[Self.normalized("<Alt><Super>s")!] != nil,
            "the screen reader's key is not among what was read: \(defaults.count) keys")
        let shown = try settings.ctl(["--json"])
        #expect(shown.status == 0, "\(shown)")
        let suggested = try Self.keys(shown.stdout)
        #expect(suggested.map { $0["action"] as? String } == ["inc", "dec", "undo", "focus"])
        for key in suggested {
            let accelerator = try #require(key["key"] as? String)
            #expect(
                defaults[Self.normalized(accelerator)!] == nil,
                "\(accelerator) for \(key["action"] ?? "") is GNOME's \(defaults[Self.normalized(accelerator)!] ?? [])"
            )
            #expect(key["status"] as? String == "free", "\(key)")
        }
        // The check is GSettings' own view, so it names GNOME's holders: the old guide's keys are taken.
        let old = try settings.ctl(["--json", "--key", "focus=<Alt><Super>s,inc=Super+Alt+Up"])
        let held = try Self.keys(old.stdout).filter { $0["status"] as? String == "taken" }
        #expect(
            held.map { ($0["heldBy"] as? [[String: String]])?.first?["key"] } == [
                "shift-overview-up", "screenreader"
            ], "\(old.stdout)")
    }

    @Test(
        "--apply refuses a key another shortcut holds and writes nothing, then adds the keys keeping every shortcut; a second run changes nothing; --remove removes exactly snapsize's"
    )
    func applyAndRemove() throws {
        let settings = try Settings()
        try settings.addCustom(
            "custom0", name: "Terminal", command: "gnome-terminal", binding: "<Super>Return",
            list: ["custom0", "custom1"])
        try settings.addCustom(
            "custom1", name: "Notes", command: "gedit notes.txt", binding: "<Alt><Super>z",
            list: ["custom0", "custom1"])
        let before = settings.keyfile

        let refused = try settings.ctl(["--apply"])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.stderr.contains(
                "Super+Alt+Z (for undo) is taken by the custom shortcut 'Notes' (gedit notes.txt)"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("--key undo=<key>"), "\(refused.stderr)")
        #expect(settings.keyfile == before, "a refused --apply wrote:\n\(settings.keyfile)")
        // And GNOME's own keys are refused the same way, naming the setting.
        let screenReader = try settings.ctl(["--apply", "--key", "focus=Super+Alt+S,undo=Super+Alt+U"])
        #expect(
            screenReader.status == 1
                && screenReader.stderr.contains(
                    "GNOME's screenreader key (org.gnome.settings-daemon.plugins.media-keys)"),
            "\(screenReader)")
        #expect(settings.keyfile == before)

        let applied = try settings.ctl(["--apply", "--key", "undo=Super+Alt+U"])
        #expect(applied.status == 0 && applied.stderr == "", "\(applied)")
        #expect(
            applied.stdout.split(separator: "\n").filter { $0.hasPrefix("added: ") }.count == 4,
            "\(applied.stdout)")
        #expect(applied.stdout.contains("added: Super+Alt+U runs "), "\(applied.stdout)")
        let ours = ["inc", "dec", "undo", "focus"].map { settings.customPath("snapsize-" + $0) }
        #expect(
            try settings.customList() == "["
                + ([settings.customPath("custom0"), settings.customPath("custom1")] + ours)
                .map { "'\($0)'" }.joined(separator: ", ") + "]")
        let schema = "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:"
        #expect(
            try settings.gsettings("get", schema + settings.customPath("custom1"), "binding")
                == "'<Alt><Super>z'\n")
        #expect(try settings.gsettings("get", schema + ours[0], "binding") == "'<Super><Alt>Page_Up'\n")
        #expect(try settings.gsettings("get", schema + ours[2], "binding") == "'<Super><Alt>u'\n")
        let command = try settings.gsettings("get", schema + ours[0], "command")
        #expect(command.hasSuffix("snapsizectl inc'\n"), "\(command)")

        // Idempotent: the chosen key is kept (not the suggestion, which Notes holds), nothing is written.
        let written = settings.keyfile
        let again = try settings.ctl(["--apply"])
        #expect(
            again.status == 0
                && again.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("already there: ") },
            "\(again)")
        #expect(settings.keyfile == written)
        let shown = try Self.keys(try settings.ctl(["--json"]).stdout)
        #expect(shown.map { $0["status"] as? String } == ["set", "set", "set", "set"], "\(shown)")

        let removed = try settings.ctl(["--remove"])
        #expect(
            removed.status == 0
                && removed.stdout.split(separator: "\n").filter { $0.hasPrefix("removed: ") }.count == 4,
            "\(removed)")
        #expect(
            try settings.customList()
                == "['\(settings.customPath("custom0"))', '\(settings.customPath("custom1"))']")
        #expect(
            try settings.gsettings("get", schema + settings.customPath("custom0"), "command")
                == "'gnome-terminal'\n")
        #expect(try settings.gsettings("get", schema + ours[0], "binding") == "''\n")
        let none = try settings.ctl(["--remove"])
        #expect(
            none.status == 0 && none.stdout == "there are no snapsize keys in GNOME to remove\n",
            "\(none)")
    }

    @Test(
        "the panel gets a key when snapsize-panel is installed; without gsettings, keys says it did not check and --apply exits 69; a bad --key is a usage error"
    )
    func panelAndNoGSettings() throws {
        let settings = try Settings()
        let panel = settings.folder + "/bin/snapsize-panel"
        try FileManager.default.createDirectory(
            atPath: settings.folder + "/bin", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: panel, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        let withPanel = try Self.keys(
            try settings.ctl(["--json"], environment: ["PATH": settings.folder + "/bin:/usr/bin:/bin"])
                .stdout)
        #expect(
            withPanel.last?["action"] as? String == "panel"
                && withPanel.last?["command"] as? String == panel, "\(withPanel)")
        #expect(
            withPanel.last?["key"] as? String == "<Super><Alt>p"
                && withPanel.last?["status"] as? String == "free")

        let bare = try settings.ctl([], environment: ["PATH": settings.folder + "/bin"])
        #expect(
            bare.status == 0 && bare.stdout.contains("not checked: the gsettings tool is not installed"),
            "\(bare)")
        #expect(bare.stdout.contains("bindsym Mod4+Mod1+Page_Up exec "), "\(bare.stdout)")
        #expect(bare.stdout.contains("Meta+Alt+PgUp "), "\(bare.stdout)")
        let cannot = try settings.ctl(["--apply"], environment: ["PATH": settings.folder + "/bin"])
        #expect(cannot.status == 69 && cannot.stderr.contains("libglib2.0-bin"), "\(cannot)")

        let usage = try settings.ctl(["--key", "zoom=Super+Z"])
        #expect(usage.status == 64 && usage.stderr.contains("inc, dec, undo, focus, panel"), "\(usage)")
        let plain = try settings.ctl(["--key", "inc=z"])
        #expect(plain.status == 64, "\(plain)")
    }

    @Test(
        "GUIDE.md's recipes are what keys prints: the keys, the KDE Plasma spelling, the bindsym lines")
    func guideAgrees() throws {
        let guidePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("GUIDE.md").path
        let guide = try String(contentsOfFile: guidePath, encoding: .utf8)
        let settings = try Settings()
        let shown = try settings.ctl([]).stdout.replacingOccurrences(
            of: try settings.snapsizectl, with: "snapsizectl")
        #expect(guide.contains("snapsizectl keys --apply"))
        let bindsym = shown.split(separator: "\n").filter { $0.hasPrefix("  bindsym ") }
        let kde = shown.split(separator: "\n").filter { $0.hasPrefix("  Meta+") }
        #expect(bindsym.count == 4 && kde.count == 4, "\(shown)")
        for line in bindsym {
            #expect(guide.contains("    " + line.dropFirst(2) + "\n"), "GUIDE.md lacks \(line)")
        }
        // The same pairs, whatever the columns' padding.
        let guideLines = guide.split(separator: "\n").map {
            $0.split(separator: " ").joined(separator: " ")
        }
        for line in kde {
            #expect(
                guideLines.contains(line.split(separator: " ").joined(separator: " ")),
                "GUIDE.md lacks \(line)")
        }
        let json = try Self.keys(try settings.ctl(["--json"]).stdout)
        let spoken = [
            "<Super><Alt>Page_Up": "Super+Alt+Page Up", "<Super><Alt>Page_Down": "Super+Alt+Page Down",
            "<Super><Alt>z": "Super+Alt+Z", "<Super><Alt>f": "Super+Alt+F"
        ]
        for key in json {
            let name = try #require(
                spoken[key["key"] as? String ?? ""], "a suggestion GUIDE.md does not list: \(key)")
            #expect(
                guideLines.contains {
                    $0.hasPrefix(name + " snapsizectl \(key["action"] as? String ?? "")")
                }, "GUIDE.md lacks \(name)")
        }
        #expect(guideLines.contains("Super+Alt+P snapsize-panel the panel (when it is installed)"))
    }

    @Test(
        "the commands --apply writes run as a desktop runs them (sh -c): the inc key's command commits the next size"
    )
    func commandsRun() throws {
        let fixture = try DaemonFixture()
        let settings = try Settings()
        #expect(try settings.ctl(["--apply"]).status == 0)
        let schema =
            "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:"
            + settings.customPath("snapsize-inc")
        let quoted = try settings.gsettings("get", schema, "command").trimmingCharacters(
            in: .whitespacesAndNewlines)
        let command = String(quoted.dropFirst().dropLast())
        let pressed = try run("/bin/sh", ["-c", command], environment: fixture.environment)
        #expect(pressed.status == 0 && pressed.stdout == "80\n", "\(command): \(pressed)")
        // Another desktop: written all the same, and said.
        let kde = try settings.ctl(["--apply"], environment: ["XDG_CURRENT_DESKTOP": "KDE"])
        #expect(
            kde.status == 0 && kde.stderr.hasPrefix("note: this session's desktop is KDE, not GNOME"),
            "\(kde)")
        #expect(
            try settings.ctl(["--apply"], environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]).stderr
                == "")
        #expect(try fixture.ctl(["get"]).out == "80\n")
    }
}
