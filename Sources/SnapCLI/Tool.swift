import SnapSettings
import SnapTexts

/// `snapsizectl`: finds the subcommand, parses and validates its arguments, runs it, and turns
/// every outcome into one of the documented exit statuses.
public enum Tool {
    public static let name = "snapsizectl"
    public static let version = snapsizeVersion

    /// Every subcommand, in the order `--help` lists them.
    public static var commands: [any Command.Type] {
        [
            GetCommand.self, StatusCommand.self, SetCommand.self, IncCommand.self, DecCommand.self,
            DragCommand.self, AdjustCommand.self, WatchCommand.self, ShowCommand.self, FocusCommand.self,
            DoctorCommand.self, SnapCommand.self, UndoCommand.self, RedoCommand.self,
            HistoryCommand.self, KeysCommand.self
        ]
    }

    /// Runs `snapsizectl` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String], context: CommandContext) -> Int32 {
        let console = context.console
        guard let first = arguments.first else {
            console.err(helpText())
            return ExitCode.usage.rawValue
        }
        switch first {
        case "--help", "-h", "help":
            if first == "help", arguments.count > 1, let command = command(named: arguments[1]) {
                console.out(command.helpText(tool: name))
            } else {
                console.out(helpText())
            }
            return ExitCode.success.rawValue
        case "--version":
            console.line("\(name) \(version)")
            return ExitCode.success.rawValue
        default:
            break
        }
        guard let command = command(named: first) else {
            if let close = suggestion(for: first, among: commands.map { $0.name }) {
                console.errorLine(tr("%s: unknown command '%s'. Did you mean '%s'?", name, first, close))
            } else {
                console.errorLine(
                    tr("%s: unknown command '%s'. Run '%s --help' for the list.", name, first, name))
            }
            return ExitCode.usage.rawValue
        }
        let instance: any Command
        do {
            let parsed = try parse(Array(arguments.dropFirst()), specs: command.allArguments)
            if parsed.has("help") {
                console.out(command.helpText(tool: name))
                return ExitCode.success.rawValue
            }
            instance = try command.init(parsed)
        } catch {
            console.errorLine("\(name) \(command.name): \(error.message)")
            console.errorLine(command.usageLine(tool: name))
            return ExitCode.usage.rawValue
        }
        do {
            try instance.run(context)
            return ExitCode.success.rawValue
        } catch {
            if !error.message.isEmpty { console.errorLine("\(name): \(error.message)") }
            return error.code.rawValue
        }
    }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }

    /// What the tool is for, in one sentence (`--help` and the man page).
    public static var summary: String {
        tr(
            "Drives snapsized, the size-selection service, from a terminal, a script or a desktop shortcut."
        )
    }

    /// The exit statuses, indented as `--help` lists them (the man page too).
    public static var exitStatuses: String {
        tr(
            """
              0 success, 1 the daemon refused the request, 64 usage error,
              69 the daemon is not running and cannot be activated, 70 internal error,
              130 interrupted (Ctrl-C during drag or adjust, after cancelling the preview).
            """)
    }

    /// The tool's help, generated from the command table.
    public static func helpText() -> String {
        let width = (commands.map { $0.name.count }.max() ?? 0) + 2
        let list = commands.map {
            "  " + $0.name + String(repeating: " ", count: width - $0.name.count) + $0.abstract
        }
        return tr("USAGE: %s <command> [options]", name) + "\n\n"
            + summary + "\n\n"
            + tr("COMMANDS:") + "\n" + list.joined(separator: "\n") + "\n\n"
            + tr("OPTIONS:") + "\n"
            + tr(
                """
                  -h, --help    Show this help; '%s <command> --help' shows a command's.
                  --version     Show the version.
                  Commands that call snapsized take --timeout <seconds> (default 25); those that print data take --json.
                """, name) + "\n\n"
            + tr("EXIT STATUS:") + "\n"
            + exitStatuses + "\n"
    }
}
