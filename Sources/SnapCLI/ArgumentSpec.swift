import SnapTexts

/// One thing a command accepts, declared once so that the parser and the help text agree.
public struct ArgumentSpec: Sendable {
    public enum Kind: Sendable {
        /// `--name` with no value.
        case flag
        /// `--name VALUE` or `--name=VALUE`.
        case option(valueName: String)
        /// A bare word; `repeating` takes all remaining ones.
        case positional(valueName: String, optional: Bool, repeating: Bool)
    }

    public let name: String
    public let kind: Kind
    /// Looked up in the catalog only when a help text or man page is made: parsing a command's
    /// arguments must not start gettext (a key press that runs `snapsizectl inc` prints no words).
    private let helpText: @Sendable () -> String
    public var help: String { helpText() }

    public static func flag(_ name: String, help: @escaping @autoclosure @Sendable () -> String)
        -> ArgumentSpec
    {
        ArgumentSpec(name: name, kind: .flag, helpText: help)
    }
    public static func option(
        _ name: String, value: String, help: @escaping @autoclosure @Sendable () -> String
    ) -> ArgumentSpec {
        ArgumentSpec(name: name, kind: .option(valueName: value), helpText: help)
    }
    public static func positional(
        _ name: String, optional: Bool = false, repeating: Bool = false,
        help: @escaping @autoclosure @Sendable () -> String
    ) -> ArgumentSpec {
        ArgumentSpec(
            name: name, kind: .positional(valueName: name, optional: optional, repeating: repeating),
            helpText: help)
    }

    /// How it appears in the usage line and the options list.
    public var synopsis: String {
        switch kind {
        case .flag: return "--\(name)"
        case .option(let value): return "--\(name) <\(Texts.placeholder(value))>"
        case .positional(let value, _, let repeating):
            return "<\(Texts.placeholder(value))>" + (repeating ? " ..." : "")
        }
    }
}

/// What the parser found for one command; commands read it in their validating initialiser.
public struct ParsedArguments: Sendable {
    public var flags: Set<String> = []
    public var options: [String: String] = [:]
    public var positionals: [String] = []

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public subscript(option: String) -> String? { options[option] }
}

/// Parses `words` against `specs`: `--name value`, `--name=value`, flags, positionals, and `--`.
/// A word such as `-10` or `-0.5` is a value, not an option, so negative numbers need no quoting.
func parse(_ words: [String], specs: [ArgumentSpec]) throws(UsageError) -> ParsedArguments {
    var result = ParsedArguments()
    var index = 0
    var onlyPositionals = false
    while index < words.count {
        let word = words[index]
        index += 1
        if !onlyPositionals, word == "--" { onlyPositionals = true; continue }
        if !onlyPositionals, word.hasPrefix("-"), !looksNumeric(word) {
            var name = String(word.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if word == "-h" { name = "help" }
            guard let spec = specs.first(where: { $0.name == name && !$0.isPositional }) else {
                let known = specs.filter { !$0.isPositional }.map(\.name)
                if let close = suggestion(for: name, among: known) {
                    throw UsageError(tr("unknown option '%s'; did you mean '--%s'?", word, close))
                }
                throw UsageError(tr("unknown option '%s'", word))
            }
            switch spec.kind {
            case .flag:
                if inlineValue != nil { throw UsageError(tr("--%s takes no value", name)) }
                result.flags.insert(name)
            case .option:
                if let inlineValue {
                    result.options[name] = inlineValue
                } else {
                    guard index < words.count else { throw UsageError(tr("--%s needs a value", name)) }
                    result.options[name] = words[index]
                    index += 1
                }
            case .positional:
                break  // excluded by the lookup above
            }
        } else {
            result.positionals.append(word)
        }
    }
    let positionalSpecs = specs.filter(\.isPositional)
    let repeating = positionalSpecs.contains {
        if case .positional(_, _, true) = $0.kind { return true }; return false
    }
    if !repeating, result.positionals.count > positionalSpecs.count {
        throw UsageError(tr("unexpected argument '%s'", result.positionals[positionalSpecs.count]))
    }
    for (position, spec) in positionalSpecs.enumerated() {
        if case .positional(let value, false, _) = spec.kind, result.positionals.count <= position,
            !result.has("help")
        {
            throw UsageError(tr("missing <%s>", Texts.placeholder(value)))
        }
    }
    return result
}

private func looksNumeric(_ word: String) -> Bool {
    guard let second = word.dropFirst().first else { return false }
    return second.isNumber || second == "."
}

extension ArgumentSpec {
    public var isPositional: Bool {
        if case .positional = kind { return true }
        return false
    }
}
