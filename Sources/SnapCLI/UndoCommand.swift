import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl undo` and `redo`: the history's Undo and Redo, as in every editor. The two differ
/// only in their words and the method they call (`HistoryDirection`).
struct HistoryStepCommand<Direction: HistoryDirection>: Command {
    static var name: String { Direction.name }
    static var abstract: String { Direction.abstract }
    static var discussion: String { Direction.discussion }
    static var arguments: [ArgumentSpec] { [CommonArguments.json, CommonArguments.timeout] }

    let json: Bool
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let reply = try daemon.perform { () throws(MethodError) -> SelectorReply in
            try Direction.call(client)
        }
        printSelection(reply, json: json, context.console)
    }
}

/// What tells `undo` from `redo`: the command's words and the method it calls.
protocol HistoryDirection {
    static var name: String { get }
    static var abstract: String { get }
    static var discussion: String { get }
    static func call(_ client: any SizeSelectorClient) throws(MethodError) -> SelectorReply
}

typealias UndoCommand = HistoryStepCommand<Back>
typealias RedoCommand = HistoryStepCommand<Forward>

enum Back: HistoryDirection {
    static let name = "undo"
    static let abstract = tr("Take back the newest change of the committed size that is not undone yet.")
    static let discussion = tr(
        """
        Prints the committed size, like 'set'. Each undo goes one change further back (at most 100);
        'redo' applies again what was undone, until a new change is made. A size that is no longer in the
        list snaps to the nearest allowed one. With nothing to undo snapsized refuses with
        org.snapsize.SizeSelector1.Error.NothingToUndo (exit 1); refused while a preview is open (exit 1).
        """)
    static func call(_ client: any SizeSelectorClient) throws(MethodError) -> SelectorReply {
        try client.undo()
    }
}

enum Forward: HistoryDirection {
    static let name = "redo"
    static let abstract = tr("Apply again the newest change that was undone.")
    static let discussion = tr(
        """
        Prints the committed size, like 'set'. With nothing to redo (nothing undone, or a change made since
        the undo) snapsized refuses with org.snapsize.SizeSelector1.Error.NothingToRedo (exit 1).
        """)
    static func call(_ client: any SizeSelectorClient) throws(MethodError) -> SelectorReply {
        try client.redo()
    }
}
