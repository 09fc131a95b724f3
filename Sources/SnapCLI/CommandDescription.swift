/// A command as data, for what is generated from the same tables as `--help`: the man page and the
/// shell completions (SnapDocs).
public struct CommandDescription: Sendable {
    public let name: String
    public let abstract: String
    public let discussion: String
    /// Everything it accepts, `--help` included, in `--help` order.
    public let arguments: [ArgumentSpec]
    /// `snapsizectl snap --x <x> [--sizes <list>] ...`, as the usage line shows it.
    public let synopsis: String
}

extension Tool {
    /// Every subcommand as data, in `--help` order.
    public static var descriptions: [CommandDescription] {
        commands.map { command in
            CommandDescription(
                name: command.name, abstract: command.abstract, discussion: command.discussion,
                arguments: command.allArguments, synopsis: command.synopsis(tool: name))
        }
    }
}
