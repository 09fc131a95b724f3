import SnapTexts

/// The desktop's settings through `gsettings`, GSettings' own client (libglib2.0-bin): whatever
/// backend the session uses (dconf, or GSETTINGS_BACKEND's keyfile in tests) is the one read and written.
struct GSettings {
    static let mediaKeys = "org.gnome.settings-daemon.plugins.media-keys"
    static let customKey = "custom-keybindings"
    static let customSchema = "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding"
    static let customFolder = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/"

    /// Why the settings cannot be used, for the person.
    struct Unavailable: Error {
        let reason: String
    }

    let executable: String
    let environment: [String: String]

    init(environment: [String: String]) throws(Unavailable) {
        guard let found = Subprocess.find("gsettings", environment: environment) else {
            throw Unavailable(
                reason: tr(
                    "the gsettings tool is not installed (Debian: sudo apt install libglib2.0-bin)"))
        }
        executable = found
        self.environment = environment
    }

    /// Runs gsettings; its own message on failure.
    @discardableResult
    func run(_ arguments: [String]) throws(Unavailable) -> String {
        guard let result = Subprocess.run(executable, arguments, environment: environment) else {
            throw Unavailable(reason: tr("%s could not be started", executable))
        }
        guard result.status == 0 else {
            let message = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
            throw Unavailable(
                reason: tr("'gsettings %s' failed: %s", arguments.joined(separator: " "), message))
        }
        return result.stdout
    }

    /// One key of one schema and its value, as `gsettings list-recursively` prints it.
    struct Entry {
        let schema: String
        let key: String
        let value: String
    }

    /// Every key of every installed schema (or of `schema`), with its value now.
    func list(_ schema: String? = nil) throws(Unavailable) -> [Entry] {
        try run(["list-recursively"] + (schema.map { [$0] } ?? [])).split(separator: "\n").compactMap {
            line in
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            return Entry(schema: String(parts[0]), key: String(parts[1]), value: String(parts[2]))
        }
    }

    /// Whether `schema` is installed.
    func hasSchema(_ schema: String) throws(Unavailable) -> Bool {
        try run(["list-schemas"]).split(separator: "\n").contains { $0 == schema }
    }

    func set(_ schema: String, _ key: String, _ value: String) throws(Unavailable) {
        try run(["set", schema, key, value])
    }

    func resetAll(_ schema: String) throws(Unavailable) {
        try run(["reset-recursively", schema])
    }
}
