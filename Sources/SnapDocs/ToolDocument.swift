import SizeSelectorContract
import SnapCLI
import SnapCore
import SnapSettings
import SnapTexts

/// One program as its man page and completions see it, taken from the tables `--help` is made of:
/// SnapCLI's commands and ArgumentSpecs for snapsizectl, SnapSettings' DaemonOption table for snapsized.
public struct ToolDocument: Sendable {
    public let name: String
    public let version: String
    /// The man page's NAME line after the dash.
    public let tagline: String
    public let synopsis: [String]
    public let description: String
    /// Subcommands (empty for snapsized).
    public let commands: [CommandDescription]
    /// Options of the program itself.
    public let options: [ArgumentSpec]
    public let exitStatus: String
    /// What the program does on each signal (empty: nothing to say beyond the defaults).
    public let signals: String
    public let environment: [(name: String, meaning: String)]
    public let files: [(path: String, meaning: String)]
    public let seeAlso: [String]

    /// The allowed sizes a fresh daemon uses, offered when the running daemon cannot be asked.
    public static let defaultSizes = SizeSet.standard.sizes

    private static let sessionBus: [(name: String, meaning: String)] = [
        ("DBUS_SESSION_BUS_ADDRESS", tr("The session bus to use.")),
        (
            "XDG_RUNTIME_DIR",
            tr(
                "When DBUS_SESSION_BUS_ADDRESS is not set, the session bus is the socket bus in this directory."
            )
        )
    ]

    /// The language, as gettext chooses it (docs/LANGUAGES.md).
    private static let language: [(name: String, meaning: String)] = [
        (
            "LANGUAGE",
            tr(
                "A list of languages to try in order, such as fr:pt_BR; the first one with a catalog wins (ignored while the locale is C)."
            )
        ),
        (
            "LC_ALL, LC_MESSAGES, LANG",
            tr(
                "The locale, in this order, when LANGUAGE names no language with a catalog; a language without one, or a locale that is not installed, gives English."
            )
        )
    ]

    public static let snapsizectl = ToolDocument(
        name: Tool.name, version: Tool.version,
        tagline: tr("command-line companion of the snapsize size-selection service"),
        synopsis: ["\(Tool.name) <command> [options]", "\(Tool.name) --help | --version"],
        description: Tool.summary + "\n"
            + tr(
                """
                It talks to snapsized on the session bus, starting it by D-Bus activation when it is installed.
                Data goes to standard output, messages to standard error; plain output is stable for scripts,
                and --json prints one JSON object (one per line for watch).
                """),
        commands: Tool.descriptions,
        options: [
            .flag(
                "help", help: tr("Show the help; '%s <command> --help' shows a command's.", Tool.name)),
            .flag("version", help: tr("Show the version."))
        ],
        exitStatus: Tool.exitStatuses,
        signals: "",
        environment: sessionBus + language + [
            ("NO_COLOR", tr("When set, show and adjust print no colour."))
        ],
        files: [],
        seeAlso: ["snapsized(1)", "gdbus(1)", "busctl(1)", "orca(1)"])

    public static let snapsized = ToolDocument(
        name: "snapsized", version: snapsizeVersion,
        tagline: tr("size-selection service on D-Bus and AT-SPI2"),
        synopsis: ["snapsized [options]", "snapsized --help | --version"],
        description: DaemonArguments.summary + "\n"
            + tr(
                """
                It is normally started by D-Bus activation (%s) or as the systemd
                user unit snapsized.service. The same keys as the options may be set in the config file as
                'key = value' lines; options given on the command line win.
                """, SelectorBus.activationFile),
        commands: [],
        options: DaemonOption.all.map { option in
            option.valueName.map { ArgumentSpec.option(option.name, value: $0, help: option.help) }
                ?? ArgumentSpec.flag(option.name, help: option.help)
        } + [.flag("help", help: tr("Show the help.")), .flag("version", help: tr("Show the version."))],
        exitStatus: DaemonArguments.exitStatuses,
        signals: DaemonArguments.signals,
        environment: sessionBus + language + [
            (
                "AT_SPI_BUS_ADDRESS",
                tr(
                    "The accessibility bus; when unset, the address org.a11y.Bus reports on the session bus."
                )
            ),
            (
                "XDG_CONFIG_HOME",
                tr("Where the config file snapsize/config is looked for (default ~/.config).")
            ),
            (
                "XDG_STATE_HOME",
                tr("Where the committed size is saved as snapsize/state (default ~/.local/state).")
            )
        ],
        files: [
            ("$XDG_CONFIG_HOME/snapsize/config", tr("The config file.")),
            (
                "$XDG_STATE_HOME/snapsize/state",
                tr("The committed size, saved before each change is answered.")
            )
        ],
        seeAlso: ["snapsizectl(1)", "dbus-daemon(1)", "orca(1)"])

    public static let all = [snapsizectl, snapsized]
}

/// How a value can be completed, from the name the tables give it.
enum ValueKind: Equatable {
    case none
    case choices([String])
    case file
    case size

    init(valueName: String) {
        if valueName.contains("|") {
            self = .choices(valueName.split(separator: "|").map(String.init))
        } else if valueName == "path" {
            self = .file
        } else if valueName == "size" {
            self = .size
        } else {
            self = .none
        }
    }
}

extension ArgumentSpec {
    var valueName: String? {
        switch kind {
        case .flag: return nil
        case .option(let value): return value
        case .positional(let value, _, _): return value
        }
    }

    var takesValue: Bool {
        if case .option = kind { return true }
        return false
    }
}
