@_spi(Testing) import DBusKit
import Foundation
import SizeSelectorContract

/// A client connection owned by the test's thread, with its own loop to receive the signals
/// snapsized sends (PropertiesChanged, Committed).
public final class SelectorClient {
    public let connection: Connection
    public let loop = EventLoop()
    public private(set) var signals: [SignalMessage] = []

    public init(address: String) throws {
        connection = try Connection(address: address)
        loop.add(connection)
    }

    /// Records every signal the daemon sends.
    public func listen() {
        connection.addMatch(
            "type='signal',sender='\(SelectorBus.name.rawValue)',path='\(SelectorBus.path.rawValue)'")
        _ = connection.onSignal(interface: nil, member: nil, path: SelectorBus.path) {
            [unowned self] signal in
            self.signals.append(signal)
        }
        // The bus applies AddMatch in order; a round trip guarantees it is in place.
        _ = nameHasOwner(SelectorBus.name.rawValue)
    }

    /// `Connection.selector`: a method of org.snapsize.SizeSelector1 (or of `interface`).
    @discardableResult
    public func call(
        _ member: String, _ arguments: [DBusValue] = [],
        interface: String = SelectorBus.interface.rawValue
    ) throws(MethodError) -> [DBusValue] {
        try connection.selector(member, arguments, interface: interface)
    }

    public func property(_ name: String) throws(MethodError) -> DBusValue {
        try connection.selectorProperty(name) ?? .string("<no reply value>")
    }

    public func nameHasOwner(_ name: String) -> Bool {
        (try? connection.nameHasOwner(name, timeoutMilliseconds: 5000)) ?? false
    }

    /// Dispatches incoming messages until `condition` holds or `timeout` passes.
    @discardableResult
    public func pump(timeout: Double = 5, until condition: () -> Bool) -> Bool {
        loop.pump(timeout: timeout, until: condition)
    }

    /// Collects what arrives within `seconds`.
    public func settle(_ seconds: Double = 0.2) { loop.run(seconds: seconds) }

    /// PropertiesChanged bodies received so far, as dictionaries.
    public var propertiesChanged: [[String: DBusValue]] {
        signals.filter { $0.member == "PropertiesChanged" }.compactMap {
            $0.arguments.dropFirst().first?.asStringDict
        }
    }

    public var committed: [(UInt32, Int32)] {
        signals.filter { $0.member == SelectorSignal.committed.name }.compactMap { signal in
            (try? SelectorReply(selected: signal.arguments, from: "Committed")).map {
                (UInt32($0.index), Int32($0.size))
            }
        }
    }

    public func clear() { signals.removeAll() }

    public func close() { connection.close() }
}
