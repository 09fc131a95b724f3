import DBusKit
import SizeSelectorContract
import SnapTexts

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
    /// Opens a client to snapsized with a per-call timeout in milliseconds; the real D-Bus one unless a test passes a fake.
    public let makeClient: ClientFactory
    /// Standard input's file descriptor (for `adjust`).
    public let inputFD: Int32

    public typealias ClientFactory = ([String: String], Int32) throws(MethodError) ->
        any SizeSelectorClient

    public init(
        console: Console, environment: [String: String], inputFD: Int32 = 0,
        makeClient: ClientFactory? = nil
    ) {
        self.console = console
        self.environment = environment
        self.inputFD = inputFD
        if let makeClient {
            self.makeClient = makeClient
        } else {
            self.makeClient = Self.dbusClient
        }
    }

    /// The real client over DBusKit.
    public static func dbusClient(environment: [String: String], timeout: Int32) throws(MethodError)
        -> any SizeSelectorClient
    {
        try DBusSizeSelectorClient(environment: environment, timeoutMilliseconds: timeout)
    }
}

/// Shared argument declarations, so every command spells them the same way.
public enum CommonArguments {
    public static let json = ArgumentSpec.flag(
        "json", help: tr("Print one JSON object instead of plain text."))
    public static let help = ArgumentSpec.flag("help", help: tr("Show help for this command."))
    public static let timeout = ArgumentSpec.option(
        "timeout", value: "seconds",
        help: tr("How long to wait for each answer from snapsized (default 25)."))
}

extension Command {
    static var allArguments: [ArgumentSpec] { arguments + [CommonArguments.help] }

    /// `USAGE: snapsizectl snap --x <x> [--sizes <list>] ...`, generated from `arguments`.
    static func usageLine(tool: String) -> String {
        tr("USAGE:") + " " + synopsis(tool: tool)
    }

    /// `snapsizectl snap --x <x> [--sizes <list>] ...`.
    static func synopsis(tool: String) -> String {
        let parts = allArguments.filter { $0.name != "help" }.map { spec -> String in
            switch spec.kind {
            case .positional(_, let optional, _): return optional ? "[\(spec.synopsis)]" : spec.synopsis
            case .option where requiredOptions.contains(spec.name): return spec.synopsis
            default: return "[\(spec.synopsis)]"
            }
        }
        return ([tool, name] + parts).joined(separator: " ")
    }

    static func helpText(tool: String) -> String {
        var text = usageLine(tool: tool) + "\n\n" + abstract + "\n"
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        let positionals = allArguments.filter(\.isPositional)
        if !positionals.isEmpty {
            text += "\n" + tr("ARGUMENTS:") + "\n" + table(positionals)
        }
        text += "\n" + tr("OPTIONS:") + "\n" + table(allArguments.filter { !$0.isPositional })
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
