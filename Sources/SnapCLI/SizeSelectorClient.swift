import DBusKit
import SnapCore

/// Everything `GetAll` reports about the selection (org.snapsize.SizeSelector1's properties).
public struct SelectorState: Equatable, Sendable {
    public var sizes: [Int]
    public var selectedIndex: Int
    public var selectedSize: Int
    public var shownIndex: Int
    public var shownSize: Int
    public var previewing: Bool
    public var valueText: String
    public var label: String
    public var trackWidth: Double
    public var trackInset: Double
    public var layout: String

    public init(sizes: [Int], selectedIndex: Int, selectedSize: Int, shownIndex: Int, shownSize: Int,
                previewing: Bool, valueText: String, label: String, trackWidth: Double, trackInset: Double,
                layout: String) {
        self.sizes = sizes
        self.selectedIndex = selectedIndex
        self.selectedSize = selectedSize
        self.shownIndex = shownIndex
        self.shownSize = shownSize
        self.previewing = previewing
        self.valueText = valueText
        self.label = label
        self.trackWidth = trackWidth
        self.trackInset = trackInset
        self.layout = layout
    }

    /// The core's mapping for this daemon's sizes and track, to turn an index into an x for Preview.
    public var snapper: Snapper? {
        guard let sizeSet = try? SizeSet(sizes), let track = try? Track(width: trackWidth, inset: trackInset),
              let layout = Layout(rawValue: layout) else { return nil }
        return Snapper(sizes: sizeSet, track: track, layout: layout)
    }

    /// The words after the number in the value text ("points" in "60 points").
    public var unit: String {
        let prefix = String(shownSize) + " "
        return valueText.hasPrefix(prefix) ? String(valueText.dropFirst(prefix.count)) : "points"
    }

    /// Applies a PropertiesChanged announcement.
    public mutating func apply(_ change: SelectorChange) {
        if let value = change.selectedIndex { selectedIndex = value }
        if let value = change.selectedSize { selectedSize = value }
        if let value = change.shownIndex { shownIndex = value }
        if let value = change.shownSize { shownSize = value }
        if let value = change.previewing { previewing = value }
        if let value = change.valueText { valueText = value }
    }
}

/// What one PropertiesChanged announced; nil means "not in this announcement".
public struct SelectorChange: Equatable, Sendable {
    public var selectedIndex: Int?
    public var selectedSize: Int?
    public var shownIndex: Int?
    public var shownSize: Int?
    public var previewing: Bool?
    public var valueText: String?

    public init(selectedIndex: Int? = nil, selectedSize: Int? = nil, shownIndex: Int? = nil, shownSize: Int? = nil,
                previewing: Bool? = nil, valueText: String? = nil) {
        self.selectedIndex = selectedIndex
        self.selectedSize = selectedSize
        self.shownIndex = shownIndex
        self.shownSize = shownSize
        self.previewing = previewing
        self.valueText = valueText
    }
}

/// The committed (or shown) selection a method replied with.
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
    /// The ValueText property on its own.
    func valueText() throws(MethodError) -> String

    /// Serves the connection from `loop` and calls `onChange` for each PropertiesChanged of the
    /// selector, `onLost` once when the session bus goes away.
    func attach(to loop: EventLoop, onChange: @escaping (SelectorChange) -> Void, onLost: @escaping () -> Void)
}

/// The well-known names of the contract (issue 3, dbus/org.snapsize.SizeSelector1.xml).
public enum SelectorBus {
    public static let name = "org.snapsize.SizeSelector1"
    public static let path = ObjectPath(rawValue: "/org/snapsize/SizeSelector1")!
    public static let interface = "org.snapsize.SizeSelector1"
    public static let errorPrefix = "org.snapsize.SizeSelector1.Error."
}

/// The real client: one private session-bus connection held for the life of the command, so a
/// preview it opens stays open until the command ends it (or exits).
public final class DBusSizeSelectorClient: SizeSelectorClient {
    public let connection: Connection
    let timeoutMilliseconds: Int32

    /// Connects to the session bus found in `environment` (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).
    public init(environment: [String: String], timeoutMilliseconds: Int32) throws(MethodError) {
        connection = try Connection.session(environment: environment)
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Uses a connection that is already open (`doctor`).
    public init(connection: Connection, timeoutMilliseconds: Int32) {
        self.connection = connection
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    private func call(_ member: String, _ arguments: [DBusValue] = [], interface: String = SelectorBus.interface)
        throws(MethodError) -> [DBusValue] {
        try connection.call(destination: SelectorBus.name, path: SelectorBus.path, interface: interface,
                            member: member, arguments: arguments, timeoutMilliseconds: timeoutMilliseconds)
    }

    public func state() throws(MethodError) -> SelectorState {
        let reply = try call("GetAll", [.string(SelectorBus.interface)], interface: "org.freedesktop.DBus.Properties")
        guard let dict = reply.first?.asStringDict else { throw unexpected("GetAll", reply) }
        func int(_ key: String) throws(MethodError) -> Int {
            if let value = dict[key]?.asUInt32 { return Int(value) }
            if let value = dict[key]?.asInt32 { return Int(value) }
            throw unexpected("GetAll (\(key))", reply)
        }
        func string(_ key: String) throws(MethodError) -> String {
            guard let value = dict[key]?.asString else { throw unexpected("GetAll (\(key))", reply) }
            return value
        }
        func double(_ key: String) throws(MethodError) -> Double {
            guard let value = dict[key]?.asDouble else { throw unexpected("GetAll (\(key))", reply) }
            return value
        }
        guard let sizes = dict["Sizes"]?.asArray?.compactMap(\.asInt32), let previewing = dict["Previewing"]?.asBool else {
            throw unexpected("GetAll", reply)
        }
        return SelectorState(
            sizes: sizes.map(Int.init), selectedIndex: try int("SelectedIndex"), selectedSize: try int("SelectedSize"),
            shownIndex: try int("ShownIndex"), shownSize: try int("ShownSize"), previewing: previewing,
            valueText: try string("ValueText"), label: try string("Label"), trackWidth: try double("TrackWidth"),
            trackInset: try double("TrackInset"), layout: try string("Layout"))
    }

    public func step(by steps: Int) throws(MethodError) -> SelectorReply {
        let reply: [DBusValue]
        switch steps {
        case 1: reply = try call("Increment")
        case -1: reply = try call("Decrement")
        default: reply = try call("StepBy", [.int32(Int32(clamping: steps))])
        }
        return try selected(reply, "StepBy", withLimit: true)
    }

    public func setIndex(_ index: Int) throws(MethodError) -> SelectorReply {
        try selected(try call("SetIndex", [.uint32(UInt32(clamping: index))]), "SetIndex")
    }

    public func setSize(_ size: Int) throws(MethodError) -> SelectorReply {
        try selected(try call("SetSize", [.int32(Int32(clamping: size))]), "SetSize")
    }

    public func preview(x: Double) throws(MethodError) -> SelectorReply {
        try selected(try call("Preview", [.double(x)]), "Preview")
    }

    public func commit(x: Double) throws(MethodError) -> SelectorReply {
        try selected(try call("Commit", [.double(x)]), "Commit")
    }

    public func cancel() throws(MethodError) { _ = try call("Cancel") }

    public func focus() throws(MethodError) { _ = try call("Focus") }

    public func valueText() throws(MethodError) -> String {
        let reply = try call("Get", [.string(SelectorBus.interface), .string("ValueText")],
                             interface: "org.freedesktop.DBus.Properties")
        guard let text = reply.first?.asVariant?.asString else { throw unexpected("Get ValueText", reply) }
        return text
    }

    public func attach(to loop: EventLoop, onChange: @escaping (SelectorChange) -> Void, onLost: @escaping () -> Void) {
        connection.addMatch("type='signal',sender='\(SelectorBus.name)',path='\(SelectorBus.path.rawValue)',"
                            + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                            + "arg0='\(SelectorBus.interface)'")
        connection.onSignal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                            path: SelectorBus.path) { signal in
            guard signal.arguments.count >= 2, signal.arguments[0].asString == SelectorBus.interface,
                  let dict = signal.arguments[1].asStringDict else { return }
            func int(_ key: String) -> Int? {
                (dict[key]?.asUInt32).map(Int.init) ?? (dict[key]?.asInt32).map(Int.init)
            }
            onChange(SelectorChange(selectedIndex: int("SelectedIndex"), selectedSize: int("SelectedSize"),
                                    shownIndex: int("ShownIndex"), shownSize: int("ShownSize"),
                                    previewing: dict["Previewing"]?.asBool, valueText: dict["ValueText"]?.asString))
        }
        connection.onDisconnect = onLost
        loop.add(connection)
    }

    private func selected(_ reply: [DBusValue], _ member: String, withLimit: Bool = false) throws(MethodError) -> SelectorReply {
        guard reply.count >= 2, let index = reply[0].asUInt32, let size = reply[1].asInt32 else {
            throw unexpected(member, reply)
        }
        let atLimit = withLimit ? reply.count >= 3 && reply[2].asBool == true : false
        return SelectorReply(index: Int(index), size: Int(size), atLimit: atLimit)
    }

    private func unexpected(_ member: String, _ reply: [DBusValue]) -> MethodError {
        MethodError(.failed, "unexpected reply to \(member): signature '\(signature(of: reply))'")
    }
}

/// Marks a reply the CLI could not understand (a daemon of another version, a bug): exit 70.
extension MethodError {
    var isUnexpectedReply: Bool { name == .failed && message.hasPrefix("unexpected reply to ") }
}

extension CommandFailure {
    /// The documented exit status for a failed call: 69 when the daemon cannot be reached at all,
    /// 1 when it (or the bus on its behalf) refused, 70 when its answer made no sense to us.
    public init(_ error: MethodError, timeoutSeconds: Double? = nil) {
        let raw = error.name.rawValue
        switch raw {
        case ErrorName.serviceUnknown.rawValue, ErrorName.nameHasNoOwner.rawValue:
            self.init(.unavailable, "snapsized is not running and cannot be activated (\(raw): \(error.message))")
        case ErrorName.badAddress.rawValue, ErrorName.disconnected.rawValue,
             "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.NoServer",
             "org.freedesktop.DBus.Error.NoNetwork", "org.freedesktop.DBus.Error.AuthFailed":
            self.init(.unavailable, "cannot reach the session bus (\(raw): \(error.message))")
        case _ where raw.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            self.init(.unavailable, "snapsized could not be activated (\(raw): \(error.message))")
        case ErrorName.noReply.rawValue, ErrorName.timeout.rawValue:
            let within = timeoutSeconds.map { " within \(formatSeconds($0)) s" } ?? ""
            self.init(.unavailable, "snapsized did not answer\(within) (\(raw): \(error.message))")
        default:
            if error.isUnexpectedReply {
                self.init(.internalError, error.message)
            } else {
                self.init(.refused, "\(raw): \(error.message)")
            }
        }
    }
}

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
}
