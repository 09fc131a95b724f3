import SnapCore

/// The words about the selection, in one place: what the daemon puts on the bus (`Label`,
/// `ValueText`, `ValueTexts`, error messages), what the accessible slider says (name, description,
/// value text, action names) and what the CLI says about sizes (limit notes).
///
/// The English here is the gettext msgid; po/ holds the translations, chosen by the process's
/// language (see `Gettext`). A label or unit the user gave (`--label`, `--unit`) is used exactly as given.
public struct Texts: Equatable, Sendable {
    /// `--label` as given; nil means the default label, translated.
    public let customLabel: String?
    /// `--unit` as given; nil means points, with the language's plural forms.
    public let customUnit: String?

    public init(label: String? = nil, unit: String? = nil) {
        customLabel = label
        customUnit = unit
    }

    /// The accessible name and the `Label` property: "Circle size".
    public var label: String { customLabel ?? tr("Circle size") }

    /// What a screen reader speaks for a size, and `ValueText`: "60 points" (digits stay Western).
    public func valueText(size: Int) -> String {
        if let customUnit { return "\(size) \(customUnit)" }
        return trn("%d point", "%d points", size, size)
    }

    /// The value text of every allowed size, in order (the `ValueTexts` property).
    public func valueTexts(_ sizes: SizeSet) -> [String] { sizes.sizes.map(valueText(size:)) }

    /// The accessible description: "One of 20, 40, 60, 80 or 100 points".
    public func description(of sizes: SizeSet) -> String {
        let list = Self.choices(sizes.sizes.map(String.init))
        if let customUnit { return tr("One of %s %s", list, customUnit) }
        // TRANSLATORS: %s is the list of sizes; the plural form follows the largest size.
        return trn("One of %s point", "One of %s points", sizes[sizes.lastIndex], list)
    }

    /// A list of choices joined as the language joins one: "20, 40, 60, 80 or 100" (Arabic repeats
    /// its "or" between every two, Korean lists with commas alone, Chinese with the enumeration comma).
    public static func choices(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        guard items.count > 1 else { return last }
        // TRANSLATORS: between the choices of a list but the last two: the commas in "20, 40, 60, 80 or 100".
        let head = items.dropLast().joined(separator: tr(", "))
        // TRANSLATORS: the last two choices of a list, "80 or 100" in "20, 40, 60, 80 or 100": %1$s is
        // the choices before the last one, %2$s the last one.
        return tr("%1$s or %2$s", head, last)
    }

    /// A plain list, every item joined to the one before as the language writes it ("a, b, c").
    public static func enumeration(_ items: [String]) -> String {
        // TRANSLATORS: two items of a plain list (names), "'gnome-shell', 'orca'": no "or", no "and".
        items.dropFirst().reduce(items.first ?? "") { tr("%1$s, %2$s", $0, $1) }
    }

    /// A placeholder of a usage line in the person's language: the "seconds" of "--timeout <seconds>".
    /// Choices ("ordinal|numeric") and symbols ("n", "x") are left as they are: they are typed.
    public static func placeholder(_ name: String) -> String {
        // TRANSLATORS: the placeholders of usage lines, as in "--timeout <seconds>", "set <size>",
        // "--sizes <list>", "--label <text>", "--track-width <points>", "--state-file <path>", "<command>".
        switch name {
        case "seconds": tr("seconds")
        case "size": tr("size")
        case "list": tr("list")
        case "text": tr("text")
        case "points": tr("points")
        case "path": tr("path")
        case "command": tr("command")
        default: name
        }
    }

    /// The slider's two actions (AT-SPI `GetLocalizedName`, `GetDescription`); their names
    /// `increment`/`decrement` are not words and never change.
    public static var largerAction: (name: String, description: String) {
        (tr("Larger"), tr("Selects the next larger size"))
    }
    public static var smallerAction: (name: String, description: String) {
        (tr("Smaller"), tr("Selects the next smaller size"))
    }

    /// A step that stopped at an end: "already at the largest size, 100 points" when nothing moved,
    /// "stopped at the largest size, 100 points" when it moved and then met the end.
    public static func limitNote(largest: Bool, moved: Bool, valueText: String) -> String {
        switch (largest, moved) {
        case (true, false): tr("already at the largest size, %s", valueText)
        case (true, true): tr("stopped at the largest size, %s", valueText)
        case (false, false): tr("already at the smallest size, %s", valueText)
        case (false, true): tr("stopped at the smallest size, %s", valueText)
        }
    }

    /// What a screen reader hears when a step cannot go further: "100 points, largest size".
    public static func limitSpeech(largest: Bool, valueText: String) -> String {
        // TRANSLATORS: spoken by the screen reader; %s is the value text, e.g. "100 points".
        largest ? tr("%s, largest size", valueText) : tr("%s, smallest size", valueText)
    }

    /// The same when the value itself was just spoken (a step that moved, then met the end).
    public static func endSpeech(largest: Bool) -> String {
        largest ? tr("largest size") : tr("smallest size")
    }

    /// Why the core refused, as a sentence a person can act on (a D-Bus error message, or a usage
    /// error after the option's name).
    public static func refusal(_ error: SnapError) -> String {
        switch error {
        case .emptySizes:
            return tr("The list of sizes is empty; give at least one size, for example 20,40,60,80,100.")
        case .unsortedSizes(let position):
            return tr(
                "The sizes must strictly increase, but size number %d is not larger than the one before it.",
                position + 1)
        case .invalidTrack(let width, let inset):
            return tr(
                "The track width %s must be finite and larger than twice the inset %s, which must be finite and not negative.",
                width, inset)
        case .nonFinite(.pointerPosition):
            return tr("The pointer position x must be a finite number (not NaN or infinity).")
        case .nonFinite(.indexValue):
            return tr("The value must be a finite number (not NaN or infinity).")
        case .nonFinite(.size):
            return tr("The size must be a finite number (not NaN or infinity).")
        case .indexOutOfRange(let index, let count):
            return tr("Index %d is out of range: valid indexes are 0 to %d.", index, count - 1)
        case .previewActive(let owner):
            return tr(
                "A preview is open (held by %s); commit or cancel it first, or wait for it to end.",
                owner.name)
        }
    }

    /// A client as people know it (who holds a preview): "snapsizectl adjust (pid 4242)"; its bus
    /// name when the bus could not tell the process (`pid` 0), or the program (`command` empty).
    public static func clientName(busName: String, pid: UInt32, command: String) -> String {
        let name = command.isEmpty ? busName : command
        // TRANSLATORS: a program and its process id, e.g. "snapsizectl adjust (pid 4242)".
        return pid == 0 ? name : tr("%s (pid %d)", name, pid)
    }

    /// A commit refused because the state file could not be written; `problem` says why.
    public static func saveFailed(_ problem: String) -> String {
        tr("The size could not be saved, so nothing changed: %s.", problem)
    }

    /// `Undo` with no change left to undo.
    public static var nothingToUndo: String {
        tr("There is nothing to undo.")
    }

    /// `Redo` with no undone change left to redo.
    public static var nothingToRedo: String {
        tr("There is nothing to redo.")
    }

    /// `Focus` from a daemon started with --no-accessibility.
    public static var accessibilityTurnedOff: String {
        tr("The accessible slider is turned off: snapsized was started with --no-accessibility.")
    }

    /// `Focus` while no accessibility bus is running (none found, none being joined).
    public static var noAccessibilityBus: String {
        tr(
            "No accessibility bus is running, so the slider cannot take focus: start at-spi-bus-launcher, "
                + "or turn on assistive technologies in your desktop settings.")
    }

    /// doctor: where the committed size is saved.
    public static func savedIn(_ path: String) -> String {
        tr("the size is saved in %s", path)
    }

    /// doctor: nothing is saved because the person chose so.
    public static var notSavedChosen: String {
        tr(
            "the size is not saved: snapsized was started with --no-state (or no-state in its config file)"
        )
    }

    /// doctor: nothing is saved because there is no home folder to save in.
    public static var notSavedNoHome: String {
        tr(
            "the size is not saved: neither XDG_STATE_HOME nor HOME is set for snapsized and the password database "
                + "names no home folder (set one of them, or use --state-file)")
    }

    /// doctor: the state file cannot be written; `problem` is the daemon's reason (its log's words).
    public static func cannotSave(in path: String, because problem: String) -> String {
        tr("the size cannot be saved in %1$s, so changes are refused: %2$s", path, problem)
    }

    /// `Focus` while the accessibility bus does not answer (its dbus-daemon stopped or hung).
    public static func accessibilityNotAnswering(seconds: Int) -> String {
        trn(
            "The accessibility bus did not answer within %d second, so no screen reader was told: "
                + "if this lasts, restart assistive technologies (log out and in again), then try again.",
            "The accessibility bus did not answer within %d seconds, so no screen reader was told: "
                + "if this lasts, restart assistive technologies (log out and in again), then try again.",
            seconds, seconds)
    }
}
