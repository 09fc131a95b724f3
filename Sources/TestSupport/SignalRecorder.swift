@_spi(Testing) import DBusKit
import Foundation

extension EventLoop {
    /// Runs this loop (a client's, on the test's thread) until `condition` holds or `timeout` seconds
    /// pass; whether it held.
    @discardableResult
    public func pump(timeout: Double = 5, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            run(seconds: 0.005)
        }
        return true
    }
}

/// A listener of its own on a bus, driven by the test's thread: a connection and a loop that keep
/// `value(signal)` of every signal the match rule routes to it and the filter lets through.
public final class SignalRecorder<Value> {
    public let connection: Connection
    public let loop = EventLoop()
    public private(set) var values: [Value] = []

    /// `rule` goes to the bus (AddMatch); `interface`, `member` and `path` filter what arrives, as
    /// `Connection.onSignal` does; `value` picks what to keep from a signal (nil: nothing). A round trip
    /// to the bus (NameHasOwner of `roundTripName`) puts the match in place before this returns.
    public init(
        address: String, rule: String, interface: String?, member: String?, path: ObjectPath? = nil,
        roundTripName: String, value: @escaping (SignalMessage) -> Value?
    ) throws {
        connection = try Connection(address: address)
        loop.add(connection)
        connection.addMatch(rule)
        connection.onSignal(interface: interface, member: member, path: path) { [unowned self] signal in
            if let kept = value(signal) { self.values.append(kept) }
        }
        _ = try connection.nameHasOwner(roundTripName)
    }

    /// Receives until `condition` holds or `timeout` seconds pass.
    @discardableResult
    public func pump(timeout: Double = 5, until condition: () -> Bool) -> Bool {
        loop.pump(timeout: timeout, until: condition)
    }

    /// Forgets what was kept so far.
    public func clear() { values.removeAll() }
}
