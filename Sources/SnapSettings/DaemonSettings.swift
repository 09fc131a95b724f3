import SnapCore
import SnapTexts

/// Everything `snapsized` is configured with, after flags and the config file are merged.
public struct DaemonSettings: Equatable, Sendable {
    public enum Announce: String, CaseIterable, Sendable {
        /// Speak committed changes and limits the way the running screen reader listens: an
        /// `object:announcement` when the registry lists a listener for it (Orca 45+), else the
        /// status bar's notification (Orca 43); nothing extra where the slider's own value event
        /// is already spoken (Orca 43 with the slider focused).
        case changes
        /// Always an `object:announcement`, whoever listens.
        case announcement
        /// Always the status bar's notification (never while Orca 43 would speak the value event).
        case notification
        /// Speak nothing beyond the slider's own events.
        case never
    }

    public var snapper = Snapper()
    /// The label and unit the user gave, if any; the words themselves come from SnapTexts.
    public var texts = Texts()
    /// The size to start with when no saved state exists (snapped to the allowed sizes).
    public var initialSize: Int?
    /// Seconds without a Preview call after which an open preview is cancelled.
    public var previewTimeout: Double = 30
    /// Where the committed size is kept; nil with `--no-state`.
    public var stateFile: String?
    public var accessibility = true
    public var announce = Announce.changes

    public init() {}

    /// The index to start from when nothing was saved: the initial size, else the middle one.
    public var initialIndex: Int {
        initialSize.map { snapper.sizes.index(nearestTo: $0) } ?? snapper.sizes.count / 2
    }
}

/// One daemon option: its flag name (also its config-file key) and how it reads a value.
public struct DaemonOption: Sendable {
    /// The options by name; `DaemonValues.set` reads each one's value in one exhaustive switch.
    public enum Key: String, CaseIterable, Sendable {
        case sizes, initial, label, unit, layout
        case trackWidth = "track-width", trackInset = "track-inset", previewTimeout = "preview-timeout"
        case stateFile = "state-file", noState = "no-state", noAccessibility = "no-accessibility"
        case announce, config
    }

    public let key: Key
    public var name: String { key.rawValue }
    public let valueName: String?
    /// Composed when read (--help, the man page), not at every start: gettext and the placeholders
    /// cost more than anything else snapsized does before it owns its name (make bench: exec -> name owned).
    public var help: String { composeHelp() }
    private let composeHelp: @Sendable () -> String

    init(_ key: Key, valueName: String?, help: @escaping @autoclosure @Sendable () -> String) {
        self.key = key
        self.valueName = valueName
        composeHelp = help
    }

    /// Every option `snapsized` accepts, in `--help` order. Config files use the same names as keys.
    public static let all: [DaemonOption] = [
        DaemonOption(
            .sizes, valueName: "list",
            help: tr("Allowed sizes, strictly increasing (default 20,40,60,80,100).")),
        DaemonOption(
            .initial, valueName: "size",
            help: tr("Size to start with when none is saved (snapped; default the middle size).")),
        DaemonOption(
            .label, valueName: "text",
            help: tr("What the control is called (default \"%s\").", Texts().label)),
        DaemonOption(
            .unit, valueName: "text",
            help: tr(
                "Unit spoken after a size (default: points, as in \"%s\").", Texts().valueText(size: 60))
        ),
        DaemonOption(
            .layout, valueName: "ordinal|numeric",
            help: tr("How sizes are spread on the track (default ordinal).")),
        DaemonOption(.trackWidth, valueName: "points", help: tr("Track width (default 336).")),
        DaemonOption(
            .trackInset, valueName: "points",
            help: tr("Thumb radius at each end of the track (default 12).")),
        DaemonOption(
            .previewTimeout, valueName: "seconds",
            help: tr("Cancel a preview after this long without a Preview call (default 30).")),
        DaemonOption(
            .stateFile, valueName: "path",
            help: tr("Where the committed size is saved (default $XDG_STATE_HOME/snapsize/state).")),
        DaemonOption(.noState, valueName: nil, help: tr("Neither restore nor save the committed size.")),
        DaemonOption(.noAccessibility, valueName: nil, help: tr("Do not join the accessibility bus.")),
        DaemonOption(
            .announce, valueName: "changes|announcement|notification|never",
            help: tr(
                "How screen readers hear committed changes and limits: changes picks an announcement or the status bar's notification by what the screen reader listens for; announcement or notification forces one; never (default changes)."
            )),
        DaemonOption(
            .config, valueName: "path",
            help: tr(
                "Config file (default $XDG_CONFIG_HOME/snapsize/config); keys are these option names."))
    ]
}

/// The values given for snapsized's options, from the command line or a config file, each read
/// once into its type when it is given. nil: not given.
public struct DaemonValues: Equatable, Sendable {
    public var sizes: SizeSet?
    public var initial: Int?
    public var label: String?
    public var unit: String?
    public var layout: Layout?
    public var trackWidth: Double?
    public var trackInset: Double?
    public var previewTimeout: Double?
    public var stateFile: String?
    public var noState: Bool?
    public var noAccessibility: Bool?
    public var announce: DaemonSettings.Announce?
    public var config: String?

    public init() {}

    /// Reads the value of `key` from `text` ("" for an option without a value).
    public mutating func set(_ key: DaemonOption.Key, _ text: String) throws(InvalidValue) {
        let option = "--" + key.rawValue
        switch key {
        case .sizes: sizes = try OptionValues.sizes(text)
        case .initial: initial = try OptionValues.integer(text, option: option)
        case .label:
            guard !text.isEmpty else { throw InvalidValue(tr("--label: the label must not be empty")) }
            label = text
        case .unit: unit = text
        case .layout: layout = try OptionValues.layout(text)
        case .trackWidth: trackWidth = try OptionValues.number(text, option: option)
        case .trackInset: trackInset = try OptionValues.number(text, option: option)
        case .previewTimeout:
            let seconds = try OptionValues.number(text, option: option)
            guard seconds > 0, seconds <= 86_400 else {
                throw InvalidValue(
                    tr("--preview-timeout: give a number of seconds above 0 and at most 86400"))
            }
            previewTimeout = seconds
        case .stateFile:
            guard !text.isEmpty else {
                throw InvalidValue(tr("--state-file: the path must not be empty"))
            }
            stateFile = text
        case .noState: noState = true
        case .noAccessibility: noAccessibility = true
        case .announce:
            guard let value = DaemonSettings.Announce(rawValue: text) else {
                throw InvalidValue(
                    tr("--announce: '%s' is not one of changes, announcement, notification, never", text)
                )
            }
            announce = value
        case .config: config = text
        }
    }

    /// These values with `other`'s given ones in their place (flags over the config file).
    public func overridden(by other: DaemonValues) -> DaemonValues {
        DaemonValues(
            sizes: other.sizes ?? sizes, initial: other.initial ?? initial, label: other.label ?? label,
            unit: other.unit ?? unit, layout: other.layout ?? layout,
            trackWidth: other.trackWidth ?? trackWidth, trackInset: other.trackInset ?? trackInset,
            previewTimeout: other.previewTimeout ?? previewTimeout,
            stateFile: other.stateFile ?? stateFile,
            noState: other.noState ?? noState, noAccessibility: other.noAccessibility ?? noAccessibility,
            announce: other.announce ?? announce, config: other.config ?? config)
    }

    private init(
        sizes: SizeSet?, initial: Int?, label: String?, unit: String?, layout: Layout?,
        trackWidth: Double?, trackInset: Double?, previewTimeout: Double?, stateFile: String?,
        noState: Bool?, noAccessibility: Bool?, announce: DaemonSettings.Announce?, config: String?
    ) {
        self.sizes = sizes
        self.initial = initial
        self.label = label
        self.unit = unit
        self.layout = layout
        self.trackWidth = trackWidth
        self.trackInset = trackInset
        self.previewTimeout = previewTimeout
        self.stateFile = stateFile
        self.noState = noState
        self.noAccessibility = noAccessibility
        self.announce = announce
        self.config = config
    }
}

/// What the daemon's command line asked for.
public enum DaemonCommand: Equatable, Sendable {
    case run(flags: DaemonValues)
    case help
    case version
}

public enum DaemonArguments {
    /// Reads argv into option values, or help/version.
    public static func parse(_ words: [String]) throws(InvalidValue) -> DaemonCommand {
        var flags = DaemonValues()
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--help" || word == "-h" { return .help }
            if word == "--version" { return .version }
            guard word.hasPrefix("--") else { throw InvalidValue(tr("unexpected argument '%s'", word)) }
            var name = String(word.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = DaemonOption.all.first(where: { $0.name == name }) else {
                throw InvalidValue(tr("unknown option '--%s'; see --help", name))
            }
            if option.valueName == nil {
                if value != nil { throw InvalidValue(tr("--%s takes no value", name)) }
                try flags.set(option.key, "")
            } else if let value {
                try flags.set(option.key, value)
            } else {
                guard index < words.count else { throw InvalidValue(tr("--%s needs a value", name)) }
                try flags.set(option.key, words[index])
                index += 1
            }
        }
        return .run(flags: flags)
    }

    /// Reads `key = value` lines ('#' starts a comment). Unknown keys are errors, so typos show.
    public static func parseConfig(_ text: String, path: String) throws(InvalidValue) -> DaemonValues {
        var values = DaemonValues()
        // A file saved on Windows: a byte-order mark first, and "\r\n" line ends, which Swift
        // reads as one Character (so splitting at "\n" alone would see one long line).
        let body =
            text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (number, rawLine) in lines.enumerated() {
            let line =
                rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw InvalidValue(
                    tr("%s:%d: expected 'key = value', got '%s'", path, number + 1, trimmed))
            }
            let key = trimmed[..<equals].trimmingWhitespace()
            let value = trimmed[trimmed.index(after: equals)...].trimmingWhitespace()
            guard let option = DaemonOption.all.first(where: { $0.name == key }), option.key != .config
            else {
                let known = DaemonOption.all.filter { $0.key != .config }.map(\.name)
                if let close = suggestion(for: String(key), among: known) {
                    throw InvalidValue(
                        tr("%s:%d: unknown key '%s' (did you mean '%s'?)", path, number + 1, key, close))
                }
                throw InvalidValue(tr("%s:%d: unknown key '%s'", path, number + 1, key))
            }
            if option.valueName == nil {
                guard ["true", "yes", "1"].contains(value) || ["false", "no", "0"].contains(value) else {
                    throw InvalidValue(tr("%s:%d: %s must be true or false", path, number + 1, key))
                }
                if ["true", "yes", "1"].contains(value) { try values.set(option.key, "") }
            } else {
                try values.set(option.key, value)
            }
        }
        return values
    }

    /// Merges config-file values under flag values (flags win) and checks what only the merged
    /// values can show (whether the thumb fits the track).
    /// `defaultStateFile` is used unless `state-file` or `no-state` is given.
    public static func settings(
        flags: DaemonValues, config: DaemonValues,
        defaultStateFile: String?
    ) throws(InvalidValue) -> DaemonSettings {
        let merged = config.overridden(by: flags)
        var settings = DaemonSettings()
        settings.snapper = try OptionValues.snapper(
            sizes: merged.sizes, width: merged.trackWidth,
            inset: merged.trackInset, layout: merged.layout)
        settings.texts = Texts(label: merged.label, unit: merged.unit)
        settings.initialSize = merged.initial
        if let seconds = merged.previewTimeout { settings.previewTimeout = seconds }
        if merged.noState == true {
            settings.stateFile = nil
        } else {
            settings.stateFile = merged.stateFile ?? defaultStateFile
        }
        settings.accessibility = merged.noAccessibility != true
        if let announce = merged.announce { settings.announce = announce }
        return settings
    }

    /// What the daemon does (`--help` and the man page).
    public static var summary: String {
        tr(
            """
            Serves the committed size selection as org.snapsize.SizeSelector1 on the session bus and
            as an accessible slider on the accessibility bus. The session bus is DBUS_SESSION_BUS_ADDRESS,
            else the socket $XDG_RUNTIME_DIR/bus.
            """)
    }

    /// The exit statuses, indented as `--help` lists them (the man page too).
    public static var exitStatuses: String {
        tr(
            """
              0 stopped by SIGTERM/SIGINT, 64 invalid options, 69 the bus name is taken or no session bus,
              75 the session bus went away (restart me).
            """)
    }

    /// What the daemon does on each signal, indented as `--help` lists them (the man page too).
    public static var signals: String {
        tr(
            """
              SIGTERM, SIGINT: end a preview as if cancelled, and exit 0 (the committed size is already saved).
              SIGHUP: read the config file again and apply what changed (the flags still win); a file that
              cannot be used changes nothing, and the log says why.
            """)
    }

    /// `snapsized --help`, generated from the option table.
    public static func helpText() -> String {
        let rows =
            DaemonOption.all.map { option in
                (
                    "--" + option.name + (option.valueName.map { " <\(Texts.placeholder($0))>" } ?? ""),
                    option.help
                )
            } + [("-h, --help", tr("Show this help.")), ("--version", tr("Show the version."))]
        let width = (rows.map { $0.0.count }.max() ?? 0) + 2
        let table = rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 }
        return tr("USAGE: %s [options]", "snapsized") + "\n\n"
            + summary + "\n\n"
            + tr("OPTIONS:") + "\n" + table.joined(separator: "\n") + "\n\n"
            + tr("SIGNALS:") + "\n"
            + signals + "\n\n"
            + tr("EXIT STATUS:") + "\n"
            + exitStatuses + "\n"
    }
}
