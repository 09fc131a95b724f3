import DBusKit

/// A client of the daemon as the `ChangedBy` property `(sus)` names it: its unique bus name, its
/// process id and command ("snapsizectl adjust"), as far as the bus could tell (pid 0 and an empty
/// command when it could not). `unknown` (all empty) marks a change no client made: a preview that
/// timed out or whose owner left, a write through the accessibility bus.
public struct ClientIdentity: Equatable, Sendable {
    public var uniqueName: String
    public var pid: UInt32
    public var command: String

    public init(uniqueName: String, pid: UInt32, command: String) {
        self.uniqueName = uniqueName
        self.pid = pid
        self.command = command
    }

    public static let unknown = ClientIdentity(uniqueName: "", pid: 0, command: "")

    public var isKnown: Bool { !uniqueName.isEmpty }

    /// "snapsizectl adjust (pid 4242)"; the bus name when the process is unknown. Never translated:
    /// `snapsizectl status` prints it in its plain output, which scripts read (a sentence a person
    /// reads takes SnapTexts' `Texts.clientName` instead).
    public var plainName: String {
        if command.isEmpty { return pid == 0 ? uniqueName : "\(uniqueName) (pid \(pid))" }
        return pid == 0 ? command : "\(command) (pid \(pid))"
    }

    /// `(sus)`.
    public var value: DBusValue { .structure([.string(uniqueName), .uint32(pid), .string(command)]) }

    /// Reads `(sus)`; nil for anything else.
    public init?(_ value: DBusValue) {
        guard case .structure(let members) = value, members.count == 3, let name = members[0].asString,
            let pid = members[1].asUInt32, let command = members[2].asString
        else { return nil }
        self.init(uniqueName: name, pid: pid, command: command)
    }
}
