import SnapTexts

/// A JSON value written with keys in the order given, so `--json` output is stable for scripts.
public enum JSON: Equatable, Sendable {
    case string(String)
    case int(Int)
    /// A number that may be beyond `Int` (a sequence number from the bus, `t`).
    case unsigned(UInt64)
    case double(Double)
    case bool(Bool)
    case array([JSON])
    case object([(String, JSON)])
    case null

    public static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.text == rhs.text }

    /// Compact text on one line.
    public var text: String {
        switch self {
        case .string(let value): return quote(value)
        case .int(let value): return String(value)
        case .unsigned(let value): return String(value)
        case .double(let value):
            guard value.isFinite else { return "null" }
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): return value ? "true" : "false"
        case .array(let values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        case .null: return "null"
        }
    }
}

private func quote(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where Texts.isUnprintable(scalar):
            // Escaped, so the value stays exact and a terminal shows the escape, never obeys it.
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}
