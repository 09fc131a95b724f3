import DBusKit

/// The selection a method replied with, in the contract's two reply shapes: `(ui)` from SetIndex,
/// SetSize, Preview and Commit (and the Committed signal's arguments), `(uib)` from the steps.
public struct SelectorReply: Equatable, Sendable {
    public var index: Int
    public var size: Int
    /// Only steps report it: the step was stopped by an end of the list.
    public var atLimit: Bool

    public init(index: Int, size: Int, atLimit: Bool = false) {
        self.index = index
        self.size = size
        self.atLimit = atLimit
    }

    public static let selectedArguments = [Argument("index", "u"), Argument("size", "i")]
    public static let stepArguments = selectedArguments + [Argument("atLimit", "b")]
    /// SetIndex and SetSize: the same `(ui)`, named apart from their inputs `index` and `size` so that
    /// code generators keep both names (qdbusxml2cpp renames a clash to `size_`).
    public static let committedArguments = [
        Argument("committedIndex", "u"), Argument("committedSize", "i")
    ]

    /// `(ui)`.
    public var selectedBody: [DBusValue] { [.uint32(UInt32(index)), .int32(Int32(size))] }
    /// `(uib)`.
    public var stepBody: [DBusValue] { [.uint32(UInt32(index)), .int32(Int32(size)), .boolean(atLimit)] }

    /// Reads a `(ui)` reply; `atLimit` is false.
    public init(selected body: [DBusValue], from member: String) throws(MethodError) {
        guard body.count == 2, let index = body[0].asUInt32, let size = body[1].asInt32 else {
            throw unexpectedReply(to: member, body)
        }
        self.init(index: Int(index), size: Int(size))
    }

    /// Reads a `(uib)` reply.
    public init(step body: [DBusValue], from member: String) throws(MethodError) {
        guard body.count == 3, let index = body[0].asUInt32, let size = body[1].asInt32,
            let atLimit = body[2].asBool
        else {
            throw unexpectedReply(to: member, body)
        }
        self.init(index: Int(index), size: Int(size), atLimit: atLimit)
    }
}

/// What a client's decoders throw for a body that does not have the contract's shape.
public func unexpectedReply(to member: String, _ body: [DBusValue]) -> MethodError {
    MethodError(.unexpectedReply, "unexpected reply to \(member): signature '\(signature(of: body))'")
}
