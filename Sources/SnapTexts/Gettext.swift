internal import CIntl
internal import CPOSIX
#if canImport(Glibc)
    import Glibc
#endif

/// glibc's gettext for the text domain `snapsize`, set up once on first use.
///
/// The language is chosen as gettext chooses it: `LANGUAGE` (a list, first catalog found wins), then
/// `LC_ALL`, `LC_MESSAGES`, `LANG`. A language without a catalog, `C`, or a locale that is not
/// installed gives the English msgid itself, never an error. Only LC_MESSAGES is taken from the
/// environment: numbers are formatted by Swift and keep Western digits in every language.
public enum Gettext {
    public static let domain = "snapsize"

    /// Where the compiled catalogs (`<lang>/LC_MESSAGES/snapsize.mo`) are looked up, next to the
    /// running executable: `<bin>/locale` (the build folder: `make build`, `make run` and the tests
    /// compile po/ there), else `<bin>/../share/locale` (an installed prefix: `make install`).
    public static let localeDirectory: String = {
        let binary = executableDirectory() ?? "/usr/bin"
        let uninstalled = binary + "/locale"
        return isDirectory(uninstalled) ? uninstalled : binary + "/../share/locale"
    }()

    /// The catalog is bound before the first lookup (a global `let` is initialised once, thread-safely).
    static let ready: Bool = {
        _ = setlocale(LC_MESSAGES, "")
        _ = bindtextdomain(domain, localeDirectory)
        _ = bind_textdomain_codeset(domain, "UTF-8")
        return true
    }()

    /// Without a translation gettext returns the msgid pointer itself, so the result is copied
    /// while that C string is still alive.
    static func lookup(_ msgid: String) -> String {
        _ = ready
        return msgid.withCString { String(cString: dgettext(domain, $0)) }
    }

    static func lookup(_ singular: String, _ plural: String, _ count: Int) -> String {
        _ = ready
        return singular.withCString { one in
            plural.withCString { other in
                String(cString: dngettext(domain, one, other, UInt(clamping: count.magnitude)))
            }
        }
    }

    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && cposix_is_directory(info.st_mode)
    }
}

/// The translation of `msgid` with its `%s`/`%d` (or `%1$s`, `%2$d` when a language reorders them)
/// replaced by `arguments`, in order. `make pot` extracts every `tr("…")` into po/snapsize.pot;
/// the msgid must be one string literal.
public func tr(_ msgid: String, _ arguments: any CustomStringConvertible...) -> String {
    fillPlaceholders(Gettext.lookup(msgid), arguments)
}

/// The plural form of the catalog's language for `count` (English: `singular` for 1, else `plural`).
public func trn(
    _ singular: String, _ plural: String, _ count: Int, _ arguments: any CustomStringConvertible...
) -> String {
    fillPlaceholders(Gettext.lookup(singular, plural, count), arguments)
}

/// printf's placeholders, without printf: every argument is printed by Swift (`String(describing:)`),
/// so digits are Western whatever the locale. `%%` is a percent sign; an unknown or missing
/// placeholder is left as it is rather than trapping on a translator's typo.
func fillPlaceholders(_ format: String, _ arguments: [any CustomStringConvertible]) -> String {
    guard format.contains("%") else { return format }
    var result = ""
    var next = 0
    var rest = Substring(format)
    while let percent = rest.firstIndex(of: "%") {
        result += rest[..<percent]
        var cursor = rest.index(after: percent)
        guard cursor < rest.endIndex else { result += "%"; rest = rest[cursor...]; break }
        if rest[cursor] == "%" {
            result += "%"
            rest = rest[rest.index(after: cursor)...]
            continue
        }
        // Optional position: digits followed by '$'.
        var position: Int?
        var digits = cursor
        while digits < rest.endIndex, let digit = rest[digits].wholeNumberValue, rest[digits].isASCII {
            position = (position ?? 0) * 10 + digit
            digits = rest.index(after: digits)
        }
        if position != nil, digits < rest.endIndex, rest[digits] == "$" {
            cursor = rest.index(after: digits)
        } else {
            position = nil
        }
        guard cursor < rest.endIndex, rest[cursor] == "s" || rest[cursor] == "d" else {
            result += "%"
            rest = rest[rest.index(after: percent)...]
            continue
        }
        let index = position.map { $0 - 1 } ?? next
        next += 1
        if arguments.indices.contains(index) {
            result += String(describing: arguments[index])
        } else {
            result += rest[percent...cursor]
        }
        rest = rest[rest.index(after: cursor)...]
    }
    return result + rest
}
