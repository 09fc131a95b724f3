import DBusKit

/// Where org.snapsize.SizeSelector1 lives (dbus/org.snapsize.SizeSelector1.xml is the truth; a test
/// compares the daemon's table with it). The only place these names are spelled.
public enum SelectorBus {
    /// The well-known bus name snapsized owns on the session bus.
    public static let name = BusName(rawValue: "org.snapsize.SizeSelector1")!
    /// The one object it serves.
    public static let path = ObjectPath(rawValue: "/org/snapsize/SizeSelector1")!
    /// The interface of that object.
    public static let interface = InterfaceName(rawValue: "org.snapsize.SizeSelector1")!
    /// The D-Bus activation file that starts snapsized when `name` is called (`dbus/` holds it,
    /// installed in share/dbus-1/services): a bus finds it by this name. The Makefile derives it too.
    public static let activationFile = name.rawValue + ".service"
}

/// The contract's own error names, beside DBusKit's standard ones (`ErrorName.invalidArgs` …).
extension ErrorName {
    /// A step or set while a preview is open, or another client's Preview/Commit/Cancel.
    public static let previewActive = ErrorName(
        rawValue: "org.snapsize.SizeSelector1.Error.PreviewActive")!
    /// An index or size that is not in the list.
    public static let outOfRange = ErrorName(rawValue: "org.snapsize.SizeSelector1.Error.OutOfRange")!
    /// Focus while the accessible slider is not on an accessibility bus.
    public static let noAccessibility = ErrorName(
        rawValue: "org.snapsize.SizeSelector1.Error.NoAccessibility")!
    /// Focus while the accessibility bus does not answer (its dbus-daemon hangs): no screen reader
    /// can be told.
    public static let accessibilityNotAnswering = ErrorName(
        rawValue: "org.snapsize.SizeSelector1.Error.AccessibilityNotAnswering")!
    /// Undo with no change left to undo.
    public static let nothingToUndo = ErrorName(
        rawValue: "org.snapsize.SizeSelector1.Error.NothingToUndo")!
    /// Redo with no undone change left to redo.
    public static let nothingToRedo = ErrorName(
        rawValue: "org.snapsize.SizeSelector1.Error.NothingToRedo")!
    /// Never sent by snapsized: what a client's decoders throw for a reply or property that does not
    /// have the contract's shape (a daemon of another version, a bug).
    public static let unexpectedReply = ErrorName(
        rawValue: "org.snapsize.SizeSelector1.Error.UnexpectedReply")!
}

/// The methods, with their arguments as the XML declares them.
public enum SelectorMethod: String, CaseIterable, Sendable {
    case increment = "Increment"
    case decrement = "Decrement"
    case stepBy = "StepBy"
    case setIndex = "SetIndex"
    case setSize = "SetSize"
    case preview = "Preview"
    case commit = "Commit"
    case cancel = "Cancel"
    case undo = "Undo"
    case redo = "Redo"
    case getHistory = "GetHistory"
    case focus = "Focus"

    public var name: String { rawValue }

    public var inputs: [Argument] {
        switch self {
        case .increment, .decrement, .cancel, .focus, .undo, .redo: []
        case .getHistory: [Argument("limit", "u")]
        case .stepBy: [Argument("steps", "i")]
        case .setIndex: [Argument("index", "u")]
        case .setSize: [Argument("size", "i")]
        case .preview, .commit: [Argument("x", "d")]
        }
    }

    public var outputs: [Argument] {
        switch self {
        case .increment, .decrement, .stepBy: SelectorReply.stepArguments
        case .setIndex, .setSize, .undo, .redo: SelectorReply.committedArguments
        case .getHistory: [Argument("entries", "a" + HistoryEntry.signature)]
        case .preview, .commit: SelectorReply.selectedArguments
        case .cancel, .focus: []
        }
    }
}

/// The signals besides PropertiesChanged.
public enum SelectorSignal: String, CaseIterable, Sendable {
    /// The committed selection changed; its arguments are the `(ui)` reply shape.
    case committed = "Committed"

    public var name: String { rawValue }

    public var arguments: [Argument] {
        switch self {
        case .committed: SelectorReply.selectedArguments
        }
    }
}

extension Method {
    /// The row for `method`, with the contract's name and arguments.
    public init(_ method: SelectorMethod, handler: @escaping Handler) {
        self.init(method.name, inputs: method.inputs, outputs: method.outputs, handler: handler)
    }
}

extension SignalSpec {
    public init(_ signal: SelectorSignal) {
        self.init(signal.name, arguments: signal.arguments)
    }
}
