import SnapTexts

/// The keys `keys` would bind, each with what holds it now: computed from the actions, the person's
/// `--key` choices and GNOME's settings, before anything is written.
struct KeyPlan {
    struct Item {
        let action: KeyAction
        let accelerator: Accelerator
        let command: String
        /// What else holds the key: GNOME, another custom shortcut, or another of these keys.
        var holders: [GnomeKeys.Holder]
        var otherActions: [String]
        /// This very shortcut (name, command, key) is in place already.
        var applied: Bool

        var isTaken: Bool { !holders.isEmpty || !otherActions.isEmpty }

        /// Who holds it, for the person.
        var holderText: String {
            Texts.enumeration(
                holders.map(\.description) + otherActions.map { tr("snapsize's own %s key", $0) })
        }
    }

    let items: [Item]
    /// The actions left out (the panel when it is not installed).
    let missing: [KeyAction]

    /// The key of each action: the person's choice, else the one snapsize's shortcut has now (a
    /// second --apply keeps it), else the suggestion. `gnome` is nil when the settings were not read.
    static func make(programs: KeyPrograms, overrides: [String: Accelerator], gnome: GnomeKeys?)
        -> KeyPlan
    {
        var items: [Item] = []
        var missing: [KeyAction] = []
        for action in KeyAction.all {
            guard let command = programs.command(action) else { missing.append(action); continue }
            let existing = gnome?.custom(at: action.gnomePath)
            let accelerator =
                overrides[action.name] ?? existing.flatMap { Accelerator($0.binding) }
                ?? action.suggested
            let holders = (gnome?.held[accelerator] ?? []).filter { $0.customPath != action.gnomePath }
            let applied =
                existing.map { custom in
                    gnome?.customPaths.contains(action.gnomePath) == true
                        && custom.name == action.gnomeName
                        && custom.command == command && Accelerator(custom.binding) == accelerator
                } ?? false
            items.append(
                Item(
                    action: action, accelerator: accelerator, command: command, holders: holders,
                    otherActions: [], applied: applied))
        }
        for index in items.indices {
            items[index].otherActions = items.filter {
                $0.action.name != items[index].action.name
                    && $0.accelerator == items[index].accelerator
            }.map(\.action.name)
        }
        return KeyPlan(items: items, missing: missing)
    }

    /// Writes the shortcuts that are not in place yet and adds their paths to the list, keeping every
    /// other entry: the keys of a path first, then the list, so GNOME never sees half a shortcut.
    /// Returns the items it wrote.
    func apply(_ settings: GSettings, _ gnome: GnomeKeys) throws(GSettings.Unavailable) -> [Item] {
        let pending = items.filter { !$0.applied }
        for item in pending {
            let schema = GSettings.customSchema + ":" + item.action.gnomePath
            try settings.set(schema, "name", GVariantText.quoted(item.action.gnomeName))
            try settings.set(schema, "command", GVariantText.quoted(item.command))
            try settings.set(schema, "binding", GVariantText.quoted(item.accelerator.gtk))
        }
        let added = items.map(\.action.gnomePath).filter { !gnome.customPaths.contains($0) }
        if !added.isEmpty {
            try settings.set(
                GSettings.mediaKeys, GSettings.customKey, GVariantText.array(gnome.customPaths + added))
        }
        return pending
    }

    /// Takes snapsize's shortcuts (the paths named snapsize-...) out of the list and resets their keys,
    /// touching no other; returns the ones removed.
    static func remove(_ settings: GSettings, _ gnome: GnomeKeys) throws(GSettings.Unavailable)
        -> [GnomeKeys.Custom]
    {
        let ours = gnome.customs.filter {
            $0.path.hasPrefix(GSettings.customFolder + KeyAction.pathPrefix)
        }
        guard !ours.isEmpty else { return [] }
        try settings.set(
            GSettings.mediaKeys, GSettings.customKey,
            GVariantText.array(gnome.customPaths.filter { path in !ours.contains { $0.path == path } }))
        for custom in ours { try settings.resetAll(GSettings.customSchema + ":" + custom.path) }
        return ours
    }
}
