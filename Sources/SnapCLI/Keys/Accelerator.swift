/// A key with its modifiers, as desktops name it in their settings: GTK's `<Super><Alt>Page_Up`
/// (GNOME), `Meta+Alt+PgUp` (KDE Plasma), `Mod4+Mod1+Page_Up` (sway, i3). Two accelerators are the
/// same key when their modifiers and key are, whatever the spelling (`<Alt><Super>s` is `<Super><Alt>S`).
struct Accelerator: Hashable, Sendable {
    enum Modifier: Int, CaseIterable, Sendable {
        case control, shift, alt, superKey, hyper, meta
    }

    let modifiers: Set<Modifier>
    /// The X keysym name, with its aliases resolved (`Prior` is `Page_Up`) and a letter in lower case.
    let key: String

    init(modifiers: Set<Modifier>, key: String) {
        self.modifiers = modifiers
        self.key = Self.canonicalKey(key)
    }

    /// GTK's syntax (`<Super><Alt>Page_Up`, as GSettings holds it) or the person's (`Super+Alt+Page_Up`,
    /// also KDE's `Meta+Alt+PgUp`); nil for an empty, disabled or malformed one, or one without a key.
    init?(_ text: String) {
        var modifiers: Set<Modifier> = []
        var rest = Substring(text.trimmingSpaces)
        if rest.first == "<" {
            while rest.first == "<" {
                guard let close = rest.firstIndex(of: ">") else { return nil }
                guard
                    let modifier = Self.modifier(named: rest[rest.index(after: rest.startIndex)..<close])
                else { return nil }
                if let modifier { modifiers.insert(modifier) }
                rest = rest[rest.index(after: close)...]
            }
        } else {
            var parts = rest.split(separator: "+", omittingEmptySubsequences: false)
            // `Ctrl++` is Control and the plus key.
            if parts.count >= 2, parts.last == "", parts[parts.count - 2] == "" {
                parts = parts.dropLast(2) + ["plus"]
            }
            guard let last = parts.popLast() else { return nil }
            for part in parts {
                // KDE (and the person) call the Super key Meta; in GTK's brackets <Meta> is another modifier.
                guard
                    let modifier = part.lowercased() == "meta" ? .superKey : Self.modifier(named: part),
                    let modifier
                else { return nil }
                modifiers.insert(modifier)
            }
            rest = last
        }
        let key = String(rest)
        guard !key.isEmpty, key != "disabled",
            key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        self.init(modifiers: modifiers, key: key)
    }

    /// The modifier a name stands for; `.some(nil)` for one that changes nothing here (`<Release>`),
    /// nil for a name that is no modifier.
    private static func modifier(named name: Substring) -> Modifier?? {
        switch name.lowercased() {
        case "control", "ctrl", "ctl", "primary": return .control
        case "shift", "shft": return .shift
        case "alt", "mod1": return .alt
        case "super", "mod4", "win": return .superKey
        case "hyper": return .hyper
        case "meta": return .meta
        case "release": return .some(nil)
        default: return nil
        }
    }

    /// Keysym aliases (X11's keysymdef.h and KDE's names) folded into one spelling.
    private static let aliases: [String: String] = [
        "prior": "Page_Up", "pgup": "Page_Up", "page_up": "Page_Up", "pageup": "Page_Up",
        "next": "Page_Down", "pgdown": "Page_Down", "pgdn": "Page_Down", "page_down": "Page_Down",
        "pagedown": "Page_Down",
        "kp_prior": "KP_Page_Up", "kp_next": "KP_Page_Down", "esc": "Escape", "del": "Delete",
        "ins": "Insert"
    ]

    private static func canonicalKey(_ key: String) -> String {
        if let alias = aliases[key.lowercased()] { return alias }
        if key.count == 1 { return key.lowercased() }
        // Arrow and function keys are spelled one way by all of them (`Up`, `F5`); only the case may differ.
        if let named = [
            "Up", "Down", "Left", "Right", "Home", "End", "Tab", "space", "Return", "BackSpace",
            "Escape",
            "Delete", "Insert", "Print"
        ].first(where: { $0.lowercased() == key.lowercased() }) {
            return named
        }
        return key
    }

    private var ordered: [Modifier] {
        Modifier.allCases.sorted { order($0) < order($1) }.filter(modifiers.contains)
    }
    private func order(_ modifier: Modifier) -> Int {
        switch modifier {
        case .superKey: 0;
        case .hyper: 1;
        case .meta: 2;
        case .control: 3;
        case .alt: 4;
        case .shift: 5
        }
    }

    /// `<Super><Alt>Page_Up`: GNOME (GSettings).
    var gtk: String {
        ordered.map { "<" + gtkName($0) + ">" }.joined() + key
    }

    private func gtkName(_ modifier: Modifier) -> String {
        switch modifier {
        case .control: "Control";
        case .shift: "Shift";
        case .alt: "Alt";
        case .superKey: "Super";
        case .hyper: "Hyper";
        case .meta: "Meta"
        }
    }

    /// `Super+Alt+Page Up`: for a person (and a screen reader, which would spell out an underscore).
    var spoken: String {
        (ordered.map(gtkName) + [key.count == 1 ? key.uppercased() : key.replacingUnderscores]).joined(
            separator: "+")
    }

    /// `Meta+Alt+PgUp`: KDE Plasma's shortcut field and kglobalshortcutsrc.
    var kde: String {
        let names = ordered.map { modifier -> String in
            switch modifier {
            case .control: "Ctrl";
            case .shift: "Shift";
            case .alt: "Alt";
            case .superKey: "Meta";
            case .hyper: "Hyper";
            case .meta: "Meta"
            }
        }
        let key =
            switch self.key {
            case "Page_Up": "PgUp"
            case "Page_Down": "PgDown"
            default: self.key.count == 1 ? self.key.uppercased() : self.key
            }
        return (names + [key]).joined(separator: "+")
    }

    /// `Mod4+Mod1+Page_Up`: sway's and i3's bindsym (named modifiers, not $mod, which each person sets).
    var xkb: String {
        let names = ordered.map { modifier -> String in
            switch modifier {
            case .control: "Control";
            case .shift: "Shift";
            case .alt: "Mod1";
            case .superKey: "Mod4";
            case .hyper: "Mod3";
            case .meta: "Mod1"
            }
        }
        return (names + [key]).joined(separator: "+")
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    fileprivate var replacingUnderscores: String {
        String(map { $0 == "_" ? " " : $0 })
    }
}
