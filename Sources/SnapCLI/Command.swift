/// One `snapsizectl` subcommand, shaped like swift-argument-parser's `ParsableCommand`: its
/// arguments are data, `init` validates them before anything runs, and `run` does the work.
public protocol Command {
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// Extra paragraphs for `--help` (optional).
    static var discussion: String { get }
    /// What it accepts; `--help` is added for every command.
    static var arguments: [ArgumentSpec] { get }
    /// Options that `init` insists on; the usage line shows them without brackets.
    static var requiredOptions: Set<String> { get }
    /// Validates the parsed words; throws a usage error (exit 64) before anything runs.
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ context: CommandContext) throws(CommandFailure)
}

extension Command {
    public static var discussion: String { "" }
    public static var requiredOptions: Set<String> { [] }
}

/// What a running command may use.
public struct CommandContext {
    public let console: Console
    public let environment: [String: String]

    public init(console: Console, environment: [String: String]) {
        self.console = console
        self.environment = environment
    }
}

/// Shared argument declarations, so every command spells them the same way.
public enum CommonArguments {
    public static let json = ArgumentSpec.flag("json", help: "Print one JSON object instead of plain text.")
    public static let help = ArgumentSpec.flag("help", help: "Show help for this command.")
}

extension Command {
    static var allArguments: [ArgumentSpec] { arguments + [CommonArguments.help] }

    /// `USAGE: snapsizectl snap --x <x> [--sizes <list>] ...`, generated from `arguments`.
    static func usageLine(tool: String) -> String {
        let parts = allArguments.filter { $0.name != "help" }.map { spec -> String in
            switch spec.kind {
            case .positional(_, let optional, _): return optional ? "[\(spec.synopsis)]" : spec.synopsis
            case .option where requiredOptions.contains(spec.name): return spec.synopsis
            default: return "[\(spec.synopsis)]"
            }
        }
        return (["USAGE:", tool, name] + parts).joined(separator: " ")
    }

    static func helpText(tool: String) -> String {
        var text = usageLine(tool: tool) + "\n\n" + abstract + "\n"
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        let positionals = allArguments.filter(\.isPositional)
        if !positionals.isEmpty {
            text += "\nARGUMENTS:\n" + table(positionals)
        }
        text += "\nOPTIONS:\n" + table(allArguments.filter { !$0.isPositional })
        return text
    }

    private static func table(_ specs: [ArgumentSpec]) -> String {
        let left = specs.map { $0.name == "help" ? "-h, --help" : $0.synopsis }
        let width = (left.map(\.count).max() ?? 0) + 2
        return zip(left, specs).map { name, spec in
            "  " + name + String(repeating: " ", count: width - name.count) + spec.help + "\n"
        }.joined()
    }
}
