import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl status`: every property of the selector, aligned.
struct StatusCommand: StateReportCommand {
    static let name = "status"
    static let abstract = tr(
        "Print everything: sizes, committed and shown size, preview, value text, label, layout.")
    static let discussion =
        tr(
            """
            Plain output is one 'key: value' line per property, values aligned:
              label:       Circle size
              sizes:       20 40 60 80 100
              committed:   60 (index 2)
              ...
            With --json: one object with every property (sizes, selectedIndex, selectedSize, shownIndex,
            shownSize, previewing, valueText, label, trackWidth, trackInset, layout, changedBy, configProblems,
            stateFile, stateSaving, stateProblem). A 'config' line (one per problem, in the daemon's language)
            says why the config file was not used; there is none when it was. 'state file' is where the
            committed size is saved (none: nowhere), 'saving' whether it is: saved, off (--no-state),
            no-home (no home folder to save in) or failing: and why.
            """) + "\n"
        + tr(
            """
            While a preview is open, 'previewing' names its holder: 'yes, held by snapsizectl adjust (pid 4242)'.
            In --json, changedBy is the client whose call made the latest change, or null when no client made it:
              {"name":":1.24","pid":4242,"command":"snapsizectl adjust"}
            """)
    let json: Bool
    let daemon: CallOptions

    func report(_ state: SelectorState, _ context: CommandContext) {
        if json {
            context.console.line(Self.json(state).text)
        } else {
            context.console.out(Self.plain(state))
        }
    }

    static func json(_ state: SelectorState) -> JSON {
        .object(
            [
                ("sizes", .array(state.sizes.map { .int($0) })),
                ("selectedIndex", .int(state.selectedIndex)), ("selectedSize", .int(state.selectedSize)),
                ("shownIndex", .int(state.shownIndex)), ("shownSize", .int(state.shownSize)),
                ("previewing", .bool(state.previewing)), ("valueText", .string(state.valueText)),
                ("label", .string(state.label)), ("trackWidth", .double(state.trackWidth)),
                ("trackInset", .double(state.trackInset)), ("layout", .string(state.layout)),
                ("changedBy", client(state.changedBy)),
                ("configProblems", .array(state.configProblems.map { .string($0) }))
            ] + Self.saving(state) + [
                ("stateProblem", Self.problem(state).map { .string($0) } ?? .null)
            ])
    }

    /// Where the size is saved, and whether, as --json says it in `status` and in `doctor`'s snapsized
    /// check: `stateFile` (null when nothing is saved) and `stateSaving`'s word ("failing" without its
    /// reason; a word this client does not know, as it came).
    static func saving(_ state: SelectorState) -> [(String, JSON)] {
        [
            ("stateFile", state.stateFile.isEmpty ? .null : .string(state.stateFile)),
            ("stateSaving", .string(StateSaving(wire: state.stateSaving)?.word ?? state.stateSaving))
        ]
    }

    /// Why the size is not saved where it should be (`failing: …`), nil otherwise.
    static func problem(_ state: SelectorState) -> String? {
        guard case .failing(let why)? = StateSaving(wire: state.stateSaving) else { return nil }
        return why
    }

    /// A client as JSON: its unique name, pid and command, null for what the bus could not tell;
    /// null as a whole for a change no client made.
    static func client(_ identity: ClientIdentity) -> JSON {
        guard identity.isKnown else { return .null }
        return .object([
            ("name", .string(identity.uniqueName)),
            ("pid", identity.pid == 0 ? .null : .int(Int(identity.pid))),
            ("command", identity.command.isEmpty ? .null : .string(identity.command))
        ])
    }

    static func plain(_ state: SelectorState) -> String {
        let rows: [(String, String)] =
            [
                ("label", state.label),
                ("sizes", state.sizes.map(String.init).joined(separator: " ")),
                ("committed", "\(state.selectedSize) (index \(state.selectedIndex))"),
                ("shown", "\(state.shownSize) (index \(state.shownIndex))"),
                (
                    "previewing",
                    !state.previewing
                        ? "no"
                        : state.changedBy.isKnown ? "yes, held by \(state.changedBy.plainName)" : "yes"
                ),
                ("value text", state.valueText),
                ("layout", state.layout),
                (
                    "track",
                    "width \(formatSeconds(state.trackWidth)), inset \(formatSeconds(state.trackInset))"
                ),
                ("state file", state.stateFile.isEmpty ? "none" : state.stateFile),
                ("saving", state.stateSaving)
            ] + state.configProblems.map { ("config", $0) }
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { key, value in
            key + ":" + String(repeating: " ", count: width - key.count - 1) + Texts.printable(value)
                + "\n"
        }.joined()
    }
}
