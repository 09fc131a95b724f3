import SnapTexts

/// `snapsizectl keys`: the suggested key bindings, whether the desktop holds them already, and how to
/// add them; `--apply` makes them GNOME custom shortcuts through GSettings, `--remove` takes them away.
struct KeysCommand: Command {
    static let name = "keys"
    static let abstract = tr(
        "Suggest keys for inc, dec, undo, focus and the panel, say which the desktop already uses, and add them to GNOME."
    )
    static let discussion = tr(
        """
        Without options, prints each suggested key, the command it runs, and whether GNOME already uses
        it (and for what), then how to add the keys on GNOME, KDE Plasma, sway and i3. --apply writes them
        as GNOME custom shortcuts through GSettings (the gsettings tool), keeping every shortcut there is;
        run again, it changes nothing. It refuses a key that GNOME or another shortcut holds, naming the
        holder, and writes nothing then: choose another with --key, e.g. --key focus=Super+Alt+G (several
        separated by commas: --key inc=Super+Alt+I,dec=Super+Alt+D). --remove takes out exactly the
        shortcuts --apply made. Exit 0 on success, 1 when a key is taken, 69 without GSettings or GNOME's
        media-keys settings. With --json one object:
          {"checked":true,"keys":[{"action":"inc","key":"<Super><Alt>Page_Up","command":"snapsizectl inc","status":"free","heldBy":[]},...]}
        where status is free, set (this shortcut is in place), taken or unchecked.
        """)
    static let arguments: [ArgumentSpec] = [
        .flag("apply", help: tr("Add the keys to GNOME as custom shortcuts (GSettings).")),
        .flag("remove", help: tr("Remove snapsize's GNOME custom shortcuts, and only those.")),
        .option(
            "key", value: "action=key",
            help: tr(
                "Use this key for an action (inc, dec, undo, focus, panel); several separated by commas."
            )),
        CommonArguments.json
    ]

    enum Mode { case show, apply, remove }

    let mode: Mode
    let overrides: [String: Accelerator]
    let json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        if arguments.has("apply"), arguments.has("remove") {
            throw UsageError(tr("--apply and --remove exclude each other"))
        }
        mode = arguments.has("apply") ? .apply : arguments.has("remove") ? .remove : .show
        var overrides: [String: Accelerator] = [:]
        for pair in (arguments["key"] ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let names = KeyAction.all.map(\.name)
            guard parts.count == 2, names.contains(String(parts[0])) else {
                throw UsageError(
                    tr(
                        "--key: '%1$s' is not ACTION=KEY with ACTION one of %2$s", String(pair),
                        names.joined(separator: ", ")))
            }
            guard let accelerator = Accelerator(String(parts[1])),
                !accelerator.modifiers.isEmpty || Self.standsAlone(accelerator.key)
            else {
                throw UsageError(
                    tr(
                        "--key: '%s' is not a key with modifiers, such as Super+Alt+G or <Super><Alt>g",
                        String(parts[1])))
            }
            overrides[String(parts[0])] = accelerator
        }
        if mode == .remove, !overrides.isEmpty {
            throw UsageError(tr("--key goes with --apply, or alone to check a key"))
        }
        self.overrides = overrides
    }

    /// Keys a desktop may bind without a modifier, as no one types them into text.
    static func standsAlone(_ key: String) -> Bool {
        key.hasPrefix("XF86")
            || (key.first == "F" && key.count <= 3 && key.dropFirst().allSatisfy(\.isNumber)
                && key.count > 1)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let programs = KeyPrograms.current(environment: context.environment)
        var settings: GSettings?
        var gnome: GnomeKeys?
        var why = ""
        do {
            let found = try GSettings(environment: context.environment)
            settings = found
            if try found.hasSchema(GSettings.mediaKeys) {
                gnome = try GnomeKeys.read(found)
            } else {
                why = tr("GNOME's media-keys settings (%s) are not installed", GSettings.mediaKeys)
            }
        } catch {
            why = error.reason
        }
        let plan = KeyPlan.make(programs: programs, overrides: overrides, gnome: gnome)
        switch mode {
        case .show:
            if json {
                context.console.line(Self.json(plan, checked: gnome != nil))
            } else {
                context.console.out(KeysReport.plain(plan, checked: gnome != nil, why: why))
            }
        case .apply:
            guard let settings, let gnome else {
                throw CommandFailure(
                    .unavailable,
                    tr("cannot add the keys to GNOME: %s. Add them as 'snapsizectl keys' shows.", why))
            }
            let taken = plan.items.filter(\.isTaken)
            guard taken.isEmpty else {
                for item in taken {
                    context.console.errorLine(
                        tr(
                            "%1$s (for %2$s) is taken by %3$s; choose another with --key %2$s=<key>",
                            item.accelerator.spoken, item.action.name, item.holderText))
                }
                throw CommandFailure(.refused, tr("nothing was changed"))
            }
            let written: [KeyPlan.Item]
            do { written = try plan.apply(settings, gnome) } catch {
                throw CommandFailure(.unavailable, error.reason)
            }
            // Written all the same (the person may log in to GNOME later), but said.
            if let desktop = context.environment["XDG_CURRENT_DESKTOP"], !desktop.isEmpty,
                !Texts.contains(desktop.lowercased(), "gnome")
            {
                context.console.errorLine(
                    tr(
                        "note: this session's desktop is %s, not GNOME: these shortcuts work in GNOME sessions; "
                            + "'snapsizectl keys' shows how to add keys here", Texts.printable(desktop)))
            }
            for item in plan.items {
                let done = written.contains { $0.action.name == item.action.name }
                // TRANSLATORS: after keys --apply, one line per key: "added: Super+Alt+Page Up runs snapsizectl inc".
                let added = tr("added: %1$s runs %2$s", item.accelerator.spoken, item.command)
                let there = tr("already there: %1$s runs %2$s", item.accelerator.spoken, item.command)
                context.console.line(done ? added : there)
            }
        case .remove:
            guard let settings, let gnome else {
                throw CommandFailure(.unavailable, tr("cannot remove keys from GNOME: %s", why))
            }
            let removed: [GnomeKeys.Custom]
            do { removed = try KeyPlan.remove(settings, gnome) } catch {
                throw CommandFailure(.unavailable, error.reason)
            }
            if removed.isEmpty {
                context.console.line(tr("there are no snapsize keys in GNOME to remove"))
            }
            for custom in removed {
                let key = Accelerator(custom.binding)?.spoken ?? Texts.printable(custom.binding)
                context.console.line(
                    tr("removed: %1$s, which ran %2$s", key, Texts.printable(custom.command)))
            }
        }
    }

    static func json(_ plan: KeyPlan, checked: Bool) -> String {
        JSON.object([
            ("checked", .bool(checked)),
            (
                "keys",
                .array(
                    plan.items.map { item in
                        let status =
                            !checked
                            ? "unchecked" : item.isTaken ? "taken" : item.applied ? "set" : "free"
                        return .object([
                            ("action", .string(item.action.name)),
                            ("key", .string(item.accelerator.gtk)),
                            ("command", .string(item.command)), ("status", .string(status)),
                            (
                                "heldBy",
                                .array(
                                    item.holders.map(\.json)
                                        + item.otherActions.map { .object([("action", .string($0))]) })
                            )
                        ])
                    })
            )
        ]).text
    }
}
