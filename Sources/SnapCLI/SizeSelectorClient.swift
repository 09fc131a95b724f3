import DBusKit
import SizeSelectorContract
import SnapCore
import SnapTexts

extension SelectorState {
    /// The core's mapping for this daemon's sizes and track, to turn an index into an x for Preview.
    public var snapper: Snapper? {
        guard let sizeSet = try? SizeSet(sizes),
            let track = try? Track(width: trackWidth, inset: trackInset),
            let layout = Layout(rawValue: layout)
        else { return nil }
        return Snapper(sizes: sizeSet, track: track, layout: layout)
    }

    /// The daemon's value text of the size at `index` ("60 points"); the bare number if it sent none.
    public func valueText(index: Int) -> String {
        if valueTexts.indices.contains(index) { return valueTexts[index] }
        return sizes.indices.contains(index) ? String(sizes[index]) : String(index)
    }
}

/// How the CLI talks to snapsized. The real one speaks D-Bus through DBusKit; unit tests may pass a fake.
/// Errors are the daemon's (or the bus's) `MethodError`s; `CommandFailure(_:)` maps them to exit statuses.
public protocol SizeSelectorClient: AnyObject {
    func state() throws(MethodError) -> SelectorState
    /// Increment for +1, Decrement for -1, StepBy otherwise.
    func step(by steps: Int) throws(MethodError) -> SelectorReply
    func setIndex(_ index: Int) throws(MethodError) -> SelectorReply
    func setSize(_ size: Int) throws(MethodError) -> SelectorReply
    func preview(x: Double) throws(MethodError) -> SelectorReply
    func commit(x: Double) throws(MethodError) -> SelectorReply
    func cancel() throws(MethodError)
    func focus() throws(MethodError)
    func undo() throws(MethodError) -> SelectorReply
    func redo() throws(MethodError) -> SelectorReply
    /// The newest `limit` changes of the committed size, oldest first.
    func history(limit: Int) throws(MethodError) -> [HistoryEntry]
    /// The ValueText property on its own.
    func valueText() throws(MethodError) -> String

    /// Serves the connection from `loop` and calls `onChange` for each PropertiesChanged of the
    /// selector, `onLost` once when the session bus goes away.
    func attach(
        to loop: EventLoop, onChange: @escaping (SelectorChange) -> Void, onLost: @escaping () -> Void)
    /// Runs `onChange` now for each PropertiesChanged already received, in order: the ones sent
    /// before a reply are queued behind it until the loop's next round. Never from inside `onChange`.
    func receivePending()
}

/// The real client: one private session-bus connection held for the life of the command, so a
/// preview it opens stays open until the command ends it (or exits).
public final class DBusSizeSelectorClient: SizeSelectorClient {
    public let connection: Connection
    let timeoutMilliseconds: Int32

    /// Connects to the session bus found in `environment` (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).
    public init(environment: [String: String], timeoutMilliseconds: Int32) throws(MethodError) {
        // DBusKit's own reason is English (it is below the words); the person reads this one.
        guard SessionBusAddress.find(environment: environment) != nil else {
            throw MethodError(.badAddress, SessionBusAddress.absenceText(environment: environment))
        }
        connection = try Connection.session(environment: environment)
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Uses a connection that is already open (`doctor`).
    public init(connection: Connection, timeoutMilliseconds: Int32) {
        self.connection = connection
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    private func call(_ method: SelectorMethod, _ arguments: [DBusValue] = []) throws(MethodError)
        -> [DBusValue]
    {
        try connection.call(
            destination: SelectorBus.name.rawValue, path: SelectorBus.path,
            interface: SelectorBus.interface.rawValue, member: method.name, arguments: arguments,
            timeoutMilliseconds: timeoutMilliseconds)
    }

    private func properties(_ member: String, _ arguments: [DBusValue]) throws(MethodError)
        -> [DBusValue]
    {
        try connection.call(
            destination: SelectorBus.name.rawValue, path: SelectorBus.path,
            interface: InterfaceName.properties.rawValue, member: member,
            arguments: [.string(SelectorBus.interface.rawValue)] + arguments,
            timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A method whose reply is the new selection `(u index, i size)`, read under the method's own name.
    private func selected(_ method: SelectorMethod, _ arguments: [DBusValue] = []) throws(MethodError)
        -> SelectorReply
    {
        try SelectorReply(selected: try call(method, arguments), from: method.name)
    }

    public func state() throws(MethodError) -> SelectorState {
        try SelectorState(getAll: try properties("GetAll", []))
    }

    public func step(by steps: Int) throws(MethodError) -> SelectorReply {
        let method: SelectorMethod = steps == 1 ? .increment : steps == -1 ? .decrement : .stepBy
        let arguments: [DBusValue] = method == .stepBy ? [.int32(Int32(clamping: steps))] : []
        return try SelectorReply(step: try call(method, arguments), from: method.name)
    }

    public func setIndex(_ index: Int) throws(MethodError) -> SelectorReply {
        try selected(.setIndex, [.uint32(UInt32(clamping: index))])
    }

    public func setSize(_ size: Int) throws(MethodError) -> SelectorReply {
        try selected(.setSize, [.int32(Int32(clamping: size))])
    }

    public func preview(x: Double) throws(MethodError) -> SelectorReply {
        try selected(.preview, [.double(x)])
    }

    public func commit(x: Double) throws(MethodError) -> SelectorReply {
        try selected(.commit, [.double(x)])
    }

    public func cancel() throws(MethodError) { _ = try call(.cancel) }

    public func focus() throws(MethodError) { _ = try call(.focus) }

    public func undo() throws(MethodError) -> SelectorReply {
        try selected(.undo)
    }

    public func redo() throws(MethodError) -> SelectorReply {
        try selected(.redo)
    }

    public func history(limit: Int) throws(MethodError) -> [HistoryEntry] {
        try HistoryEntry.list(try call(.getHistory, [.uint32(UInt32(clamping: limit))]))
    }

    public func valueText() throws(MethodError) -> String {
        let property = SelectorProperty.valueText
        let reply = try properties("Get", [.string(property.name)])
        var state = SelectorState.empty
        guard reply.count == 1, let value = reply[0].asVariant, property.decode(value, into: &state)
        else {
            throw unexpectedReply(to: "Get \(property.name)", reply)
        }
        return state.valueText
    }

    public func attach(
        to loop: EventLoop, onChange: @escaping (SelectorChange) -> Void, onLost: @escaping () -> Void
    ) {
        let properties = InterfaceName.properties.rawValue, interface = SelectorBus.interface.rawValue
        connection.addMatch(
            "type='signal',sender='\(SelectorBus.name.rawValue)',path='\(SelectorBus.path.rawValue)',"
                + "interface='\(properties)',member='PropertiesChanged',arg0='\(interface)'")
        connection.onSignal(interface: properties, member: "PropertiesChanged", path: SelectorBus.path) {
            signal in
            guard signal.arguments.count >= 2, signal.arguments[0].asString == interface,
                let dict = signal.arguments[1].asStringDict
            else { return }
            onChange(SelectorChange(changed: dict))
        }
        connection.onDisconnect = onLost
        loop.add(connection)
    }

    public func receivePending() { connection.dispatchPending() }
}

extension CommandFailure {
    /// The documented exit status for a failed call: 69 when the daemon cannot be reached at all,
    /// 1 when it (or the bus on its behalf) refused, 70 when its answer made no sense to us.
    public init(_ error: MethodError, timeoutSeconds: Double? = nil) {
        let name = error.name, raw = name.rawValue
        switch name {
        case .serviceUnknown, .nameHasNoOwner:
            self.init(
                .unavailable,
                tr("snapsized is not running and cannot be activated (%s: %s)", raw, error.message))
        case .badAddress, .disconnected, .fileNotFound, .noServer, .noNetwork, .authFailed:
            self.init(.unavailable, tr("cannot reach the session bus (%s: %s)", raw, error.message))
        case _ where name.isActivationFailure:
            self.init(.unavailable, tr("snapsized could not be activated (%s: %s)", raw, error.message))
        case .noReply, .timeout:
            if let timeoutSeconds {
                self.init(
                    .unavailable,
                    tr(
                        "snapsized did not answer within %s s (%s: %s)", formatSeconds(timeoutSeconds),
                        raw, error.message))
            } else {
                self.init(.unavailable, tr("snapsized did not answer (%s: %s)", raw, error.message))
            }
        case .unexpectedReply:
            self.init(.internalError, error.message)
        default:
            self.init(.refused, "\(raw): \(error.message)")
        }
    }
}

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
}

extension SessionBusAddress {
    /// Why there is no session bus, in the person's language (`SessionBusAddress.absence`'s words).
    static func absenceText(environment: [String: String]) -> String {
        runtimeSocketPath(environment: environment).map {
            tr("DBUS_SESSION_BUS_ADDRESS is not set, and there is no session bus socket at %s", $0)
        } ?? tr("DBUS_SESSION_BUS_ADDRESS is not set, and neither is XDG_RUNTIME_DIR")
    }
}
