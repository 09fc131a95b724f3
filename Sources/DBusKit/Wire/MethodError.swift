/// An error as it travels on the bus: an error name plus a human-readable message.
///
/// Handlers throw it to send an error reply; client calls throw it when the peer answered with an
/// error or libdbus failed. Callers branch on `name`, never on `message`.
public struct MethodError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: ErrorName
    public var message: String

    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name.rawValue): \(message)" }
}

/// A domain error that knows which D-Bus error it becomes.
///
/// Services implement this with one exhaustive `switch` (no `default`), so adding a case to the
/// domain error does not compile until it is mapped to a wire name.
public protocol DBusErrorConvertible: Error {
    var dbusError: MethodError { get }
}

extension MethodError: DBusErrorConvertible {
    public var dbusError: MethodError { self }
}
