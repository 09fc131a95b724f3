import Foundation
import SnapCLI
import SnapTexts

/// Shell completion scripts for bash, zsh and fish, generated from a ToolDocument: subcommands,
/// options, option values (choices, files) and the allowed sizes. Sizes are asked of the running
/// daemon (`snapsizectl status --json`, one second at most) and fall back to the default sizes.
public enum Completions {
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish

        /// Where Debian's shells look for vendor completions, under the prefix's share/.
        public var directory: String {
            switch self {
            case .bash: return "bash-completion/completions"
            case .zsh: return "zsh/vendor-completions"
            case .fish: return "fish/vendor_completions.d"
            }
        }

        public func fileName(for tool: String) -> String {
            switch self {
            case .bash: return tool
            case .zsh: return "_" + tool
            case .fish: return tool + ".fish"
            }
        }
    }

    public static func render(_ tool: ToolDocument, shell: Shell) -> String {
        switch shell {
        case .bash: return bash(tool)
        case .zsh: return zsh(tool)
        case .fish: return fish(tool)
        }
    }

    static let header =
        "completion for %@, generated from the argument tables that --help is made of; do not edit."

    /// The allowed sizes, comma-separated: the running daemon's, else the defaults.
    static var sizesPipeline: String {
        "snapsizectl status --json --timeout 1 2>/dev/null | sed -n 's/.*\"sizes\":\\[\\([-0-9,]*\\)\\].*/\\1/p'"
    }
    static var defaultSizes: String { ToolDocument.defaultSizes.map(String.init).joined(separator: ",") }

    /// The groups completion works with: the program's own options, or each subcommand's.
    static func groups(_ tool: ToolDocument) -> [(command: String?, arguments: [ArgumentSpec])] {
        tool.commands.isEmpty ? [(nil, tool.options)] : tool.commands.map { ($0.name, $0.arguments) }
    }

    static func function(_ tool: ToolDocument) -> String {
        "_" + tool.name.replacingDashes()
    }

    // MARK: bash

    static func bash(_ tool: ToolDocument) -> String {
        let name = tool.name, function = function(tool)
        var lines = ["# bash " + header.replacingFirst("%@", with: name), ""]
        lines += [
            "\(function)_sizes() {",
            "    local sizes",
            "    sizes=$(\(sizesPipeline))",
            "    printf '%s\\n' \"${sizes:-\(defaultSizes)}\" | tr ',' ' '",
            "}",
            "",
            "\(function)() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    COMPREPLY=()"
        ]
        func body(_ arguments: [ArgumentSpec], indent: String) -> [String] {
            var out: [String] = []
            let valued = arguments.filter(\.takesValue)
            if !valued.isEmpty {
                out.append(indent + "case $prev in")
                for spec in valued {
                    out.append(indent + "--\(spec.name))")
                    out.append(
                        indent + "    "
                            + bashValues(ValueKind(valueName: spec.valueName ?? ""), function: function)
                            + "; return ;;")
                }
                out.append(indent + "esac")
            }
            let words =
                arguments.filter { !$0.isPositional }.map { "--" + $0.name }
                + (arguments.contains { $0.name == "help" } ? ["-h"] : [])
            let positional =
                arguments.first(where: \.isPositional).map { ValueKind(valueName: $0.valueName ?? "") }
                ?? .none
            if positional == .none {
                out.append(
                    indent + "COMPREPLY=($(compgen -W '\(words.joined(separator: " "))' -- \"$cur\"))")
            } else {
                out.append(indent + "if [[ $cur == --* ]]; then")
                out.append(
                    indent
                        + "    COMPREPLY=($(compgen -W '\(words.joined(separator: " "))' -- \"$cur\"))")
                out.append(indent + "else")
                out.append(indent + "    " + bashValues(positional, function: function))
                out.append(indent + "fi")
            }
            return out
        }
        if tool.commands.isEmpty {
            lines += body(tool.options, indent: "    ")
        } else {
            let commandWords =
                tool.commands.map(\.name) + ["help"] + tool.options.map { "--" + $0.name } + ["-h"]
            lines += [
                "    if [[ $COMP_CWORD -eq 1 ]]; then",
                "        COMPREPLY=($(compgen -W '\(commandWords.joined(separator: " "))' -- \"$cur\"))",
                "        return",
                "    fi",
                "    case ${COMP_WORDS[1]} in",
                "    help)",
                "        [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W '\(tool.commands.map(\.name).joined(separator: " "))' -- \"$cur\"))",
                "        ;;"
            ]
            for command in tool.commands {
                lines.append("    \(command.name))")
                lines += body(command.arguments, indent: "        ")
                lines.append("        ;;")
            }
            lines.append("    esac")
        }
        lines += ["}", "", "complete -F \(function) \(name)", ""]
        return lines.joined(separator: "\n")
    }

    static func bashValues(_ kind: ValueKind, function: String) -> String {
        switch kind {
        case .none: return ":"
        case .choices(let words):
            return "COMPREPLY=($(compgen -W '\(words.joined(separator: " "))' -- \"$cur\"))"
        case .file: return "COMPREPLY=($(compgen -f -- \"$cur\"))"
        case .size: return "COMPREPLY=($(compgen -W \"$(\(function)_sizes)\" -- \"$cur\"))"
        }
    }

    // MARK: zsh

    static func zsh(_ tool: ToolDocument) -> String {
        let function = function(tool)
        var lines = [
            "#compdef \(tool.name)", "# zsh " + header.replacingFirst("%@", with: tool.name), ""
        ]
        lines += [
            "\(function)_sizes() {",
            "    local list",
            "    list=$(\(sizesPipeline))",
            "    compadd -- ${(s:,:)${list:-\(defaultSizes)}}",
            "}",
            ""
        ]
        func arguments(_ specs: [ArgumentSpec]) -> [String] {
            specs.map { spec -> String in
                let help = zshHelp(spec.help)
                switch spec.kind {
                case .flag where spec.name == "help":
                    return "'(-h --help)'{-h,--help}'[\(help)]'"
                case .flag:
                    return "'--\(spec.name)[\(help)]'"
                case .option(let value):
                    return
                        "'--\(spec.name)=[\(help)]:\(value):\(zshAction(ValueKind(valueName: value), function: function))'"
                case .positional(let value, _, let repeating):
                    return
                        "'\(repeating ? "*" : "1"):\(value):\(zshAction(ValueKind(valueName: value), function: function))'"
                }
            }
        }
        lines.append("\(function)() {")
        if tool.commands.isEmpty {
            lines.append("    _arguments -s \\")
            lines += arguments(tool.options).map { "        " + $0 + " \\" }
            lines.append("        && return 0")
        } else {
            lines.append("    local -a commands")
            lines.append("    commands=(")
            lines += tool.commands.map {
                "        '\($0.name):\(zshQuote($0.abstract).replacingColons())'"
            }
            lines.append("    )")
            lines += [
                "    if (( CURRENT == 2 )); then",
                "        _describe -t commands '\(tool.name) command' commands",
                "        _arguments '(-h --help)'{-h,--help}'[\(zshHelp(tr("Show the help.")))]' '--version[\(zshHelp(tr("Show the version.")))]'",
                "        return",
                "    fi",
                "    local command=$words[2]",
                "    shift words",
                "    (( CURRENT-- ))",
                "    case $command in",
                "    help)",
                "        _describe -t commands '\(tool.name) command' commands",
                "        ;;"
            ]
            for command in tool.commands {
                lines.append("    \(command.name))")
                lines.append("        _arguments -s \\")
                lines += arguments(command.arguments).map { "            " + $0 + " \\" }
                lines.append("            && return 0")
                lines.append("        ;;")
            }
            lines.append("    esac")
        }
        lines += ["}", "", "\(function) \"$@\"", ""]
        return lines.joined(separator: "\n")
    }

    static func zshAction(_ kind: ValueKind, function: String) -> String {
        switch kind {
        case .none: return " "
        case .choices(let words): return "(\(words.joined(separator: " ")))"
        case .file: return "_files"
        case .size: return "\(function)_sizes"
        }
    }

    /// Help text inside `'...[help]...'`: quotes closed and reopened, brackets escaped.
    static func zshHelp(_ text: String) -> String {
        zshQuote(text).replacingCharacters(["[": "\\[", "]": "\\]"])
    }

    static func zshQuote(_ text: String) -> String {
        text.replacingCharacters(["'": "'\\''"])
    }

    // MARK: fish

    static func fish(_ tool: ToolDocument) -> String {
        let name = tool.name, function = "__" + tool.name.replacingDashes()
        var lines = ["# fish " + header.replacingFirst("%@", with: name), ""]
        lines += [
            "function \(function)_sizes",
            "    set -l list (\(sizesPipeline))",
            "    test -n \"$list\"; or set list \(defaultSizes)",
            "    string split , -- $list",
            "end",
            "",
            "complete -c \(name) -f"
        ]
        func options(_ specs: [ArgumentSpec], condition: String) -> [String] {
            let prefix = "complete -c \(name)" + (condition.isEmpty ? "" : " -n '\(condition)'")
            return specs.map { spec -> String in
                let help = " -d '\(fishQuote(firstSentence(spec.help)))'"
                switch spec.kind {
                case .flag where spec.name == "help":
                    return prefix + " -s h -l help" + help
                case .flag:
                    return prefix + " -l \(spec.name)" + help
                case .option(let value):
                    let values: String
                    switch ValueKind(valueName: value) {
                    case .none: values = " -x"
                    case .choices(let words): values = " -x -a '\(words.joined(separator: " "))'"
                    case .file: values = " -r -F"
                    case .size: values = " -x -a '(\(function)_sizes)'"
                    }
                    return prefix + " -l \(spec.name)" + values + help
                case .positional(let value, _, _):
                    guard ValueKind(valueName: value) == .size else { return "" }
                    return prefix + " -a '(\(function)_sizes)'" + help
                }
            }.filter { !$0.isEmpty }
        }
        if tool.commands.isEmpty {
            lines += options(tool.options, condition: "")
        } else {
            let names = tool.commands.map(\.name).joined(separator: " ")
            for command in tool.commands {
                lines.append(
                    "complete -c \(name) -n '__fish_use_subcommand' -a \(command.name) -d '\(fishQuote(firstSentence(command.abstract)))'"
                )
            }
            lines.append(
                "complete -c \(name) -n '__fish_use_subcommand' -a help -d '\(fishQuote(tr("Show the help of a command.")))'"
            )
            lines += options(tool.options, condition: "__fish_use_subcommand")
            lines.append("complete -c \(name) -n '__fish_seen_subcommand_from help' -a '\(names)'")
            for command in tool.commands {
                lines += options(
                    command.arguments, condition: "__fish_seen_subcommand_from \(command.name)")
            }
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }

    static func fishQuote(_ text: String) -> String {
        text.replacingCharacters(["\\": "\\\\", "'": "\\'"])
    }

    static func firstSentence(_ text: String) -> String {
        guard let end = text.firstIndex(of: "."), text.index(after: end) < text.endIndex else {
            return text
        }
        return String(text[...end])
    }
}

extension String {
    func replacingDashes() -> String { String(map { $0 == "-" ? "_" : $0 }) }

    func replacingColons() -> String { replacingCharacters([":": "\\:"]) }

    func replacingCharacters(_ table: [Character: String]) -> String {
        var result = ""
        for character in self {
            if let replacement = table[character] {
                result += replacement
            } else {
                result.append(character)
            }
        }
        return result
    }

    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
