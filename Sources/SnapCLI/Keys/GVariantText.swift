/// The few shapes of GVariant's text format that `gsettings` prints and reads for key bindings:
/// a string (`'<Super>l'`) and an array of strings (`['<Super>Up']`, `@as []`).
enum GVariantText {
    /// The strings in `text`: one for a string, each element for an array of strings; nil for any
    /// other value (a number, a boolean, a nested array...).
    static func strings(_ text: String) -> [String]? {
        var rest = Substring(text).drop(while: { $0 == " " })
        if rest.hasPrefix("@as ") { rest = rest.dropFirst(4).drop(while: { $0 == " " }) }
        if rest.first == "[" {
            rest = rest.dropFirst()
            var items: [String] = []
            while true {
                rest = rest.drop(while: { $0 == " " || $0 == "," })
                if rest.first == "]" {
                    return rest.dropFirst().allSatisfy({ $0 == " " || $0 == "\n" }) ? items : nil
                }
                guard let (item, after) = string(rest) else { return nil }
                items.append(item)
                rest = after
            }
        }
        guard let (item, after) = string(rest), after.allSatisfy({ $0 == " " || $0 == "\n" }) else {
            return nil
        }
        return [item]
    }

    /// A quoted string at the start of `text` and what follows it.
    private static func string(_ text: Substring) -> (String, Substring)? {
        guard let quote = text.first, quote == "'" || quote == "\"" else { return nil }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == quote { return (result, text[text.index(after: index)...]) }
            if character == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { return nil }
                switch text[index] {
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: result.append(text[index])
                }
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// `text` as a GVariant string literal, for `gsettings set`.
    static func quoted(_ text: String) -> String {
        var result = "'"
        for character in text {
            switch character {
            case "'", "\\": result += "\\" + String(character)
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default: result.append(character)
            }
        }
        return result + "'"
    }

    /// An array of strings, for `gsettings set` (`@as []` when empty, which has no type otherwise).
    static func array(_ items: [String]) -> String {
        items.isEmpty ? "@as []" : "[" + items.map(quoted).joined(separator: ", ") + "]"
    }
}
