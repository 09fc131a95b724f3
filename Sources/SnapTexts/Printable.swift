/// Text that came from a client or a file, made safe where a person reads it: the one rule for
/// what a terminal (or a bidi-aware renderer) would obey rather than show. A command line, a
/// history file, a config file or another process's error message may carry any of them.
extension Texts {
    /// What replaces each character a person must not be shown as it is.
    public static let replacement: Unicode.Scalar = "?"

    /// Whether `scalar` is obeyed rather than shown: C0 and C1 controls and DEL (ESC, and U+009B
    /// CSI, U+009D OSC, U+009C ST, which start and end terminal sequences without an ESC), the
    /// format characters (Unicode category Cf: the bidi embeddings and overrides U+202A–U+202E and
    /// isolates U+2066–U+2069, zero-width characters, the byte order mark) and the line and
    /// paragraph separators (U+2028, U+2029), which break a line where none is expected.
    public static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
        if scalar.isASCII { return false }  // the common case, without a property lookup
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// `text` with each unprintable character (`isUnprintable`) replaced by `replacement`; line
    /// breaks too unless `keepingLineBreaks` (a message of several lines).
    public static func printable(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isUnprintable) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let kept = !isUnprintable(scalar) || (keepingLineBreaks && scalar == "\n")
            result.append(kept ? scalar : replacement)
        }
        return String(result)
    }
}
