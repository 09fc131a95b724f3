import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl undo` and `redo`: the history's Undo and Redo, as in every editor.
struct UndoCommand: Command {
    static let name = "undo"
    static let abstract = tr("Take back the newest change of the committed size that is not undone yet.")
    static let discussion = tr("""
        Prints the committed size, like 'set'. Each undo goes one change further back (at most 100);
        'redo' applies again what was undone, until a new change is made. A size that is no longer in the
        list snaps to the nearest allowed one. With nothing to undo snapsized refuses with
        org.snapsize.SizeSelector1.Error.NothingToUndo (exit 1); refused while a preview is open (exit 1).
        """)
    static let arguments: [ArgumentSpec] = [CommonArguments.json, CommonArguments.timeout]

    let json: Bool
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let reply = try daemon.perform { () throws(MethodError) -> SelectorReply in try client.undo() }
        printSelection(reply, json: json, context.console)
    }
}

struct RedoCommand: Command {
    static let name = "redo"
    static let abstract = tr("Apply again the newest change that was undone.")
    static let discussion = tr("""
        Prints the committed size, like 'set'. With nothing to redo (nothing undone, or a change made since
        the undo) snapsized refuses with org.snapsize.SizeSelector1.Error.NothingToRedo (exit 1).
        """)
    static let arguments: [ArgumentSpec] = [CommonArguments.json, CommonArguments.timeout]

    let json: Bool
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let reply = try daemon.perform { () throws(MethodError) -> SelectorReply in try client.redo() }
        printSelection(reply, json: json, context.console)
    }
}
