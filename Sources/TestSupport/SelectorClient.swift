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

    /// `propertiesChanged` as the changes they announce: a change made by a client the daemon had not
    /// identified yet names it by its unique name alone (pid 0), and a PropertiesChanged with
    /// `ChangedBy` alone follows once it has; here that one is folded into the change it completes.
    /// Whether a client's first change comes in one or in two depends on whether the bus had
    /// answered the daemon's question about it (asked as it connected) before the call.
    public var announcements: [[String: DBusValue]] {
        var merged: [[String: DBusValue]] = []
        for changed in propertiesChanged {
            if Array(changed.keys) == ["ChangedBy"], let by = changed["ChangedBy"]?.asStructure,
                let earlier = merged.last?["ChangedBy"]?.asStructure,
                earlier.count == 3, by.count == 3, earlier[0] == by[0], earlier[1] == .uint32(0)
            {
                merged[merged.count - 1]["ChangedBy"] = changed["ChangedBy"]
            } else {
                merged.append(changed)
            }
        }
        return merged
    }

    /// Whether every client named in `announcements` is named with its process (none by its unique
    /// name alone, waiting for the PropertiesChanged that completes it).
    public var announcementsSettled: Bool {
        announcements.allSatisfy { changed in
            guard let by = changed["ChangedBy"]?.asStructure, by.count == 3 else { return true }
            return by[0] == .string("") || by[1] != .uint32(0)
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
