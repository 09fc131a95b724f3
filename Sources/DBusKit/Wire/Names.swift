internal import CDBus
#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus object path such as `/org/snapsize/SizeSelector1`.
///
/// Validated with libdbus's own rules (`dbus_validate_path`): it starts with `/`, its elements are
/// `[A-Za-z0-9_]+`, and it has no trailing `/` except for the root path.
public struct ObjectPath: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil when `rawValue` is not a valid object path. The corresponding C function is `dbus_validate_path`.
    public init?(rawValue: String) {
        guard isValidCString(rawValue), dbus_validate_path(rawValue, nil) != 0 else { return nil }
        self.rawValue = rawValue
    }

    /// Skips validation; only for strings libdbus has already validated (e.g. read from a message).
    init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The root object `/`.
    public static let root = ObjectPath(unchecked: "/")

    /// The path of a direct child, or nil when `element` is not a valid path element.
    public func appending(_ element: String) -> ObjectPath? {
        ObjectPath(rawValue: rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// True when `self` is `ancestor` or lies below it.
    public func isDescendant(of ancestor: ObjectPath) -> Bool {
        if ancestor.rawValue == "/" || ancestor == self { return true }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    public var description: String { rawValue }
}

/// A bus name: a unique connection name (`:1.42`) or a well-known name (`org.snapsize.SizeSelector1`).
///
/// Validated with `dbus_validate_bus_name`.
public struct BusName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil when `rawValue` is not a valid bus name. The corresponding C function is `dbus_validate_bus_name`.
    public init?(rawValue: String) {
        guard isValidCString(rawValue), dbus_validate_bus_name(rawValue, nil) != 0 else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// An interface name such as `org.freedesktop.DBus.Properties`.
///
/// Validated with `dbus_validate_interface`.
public struct InterfaceName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil when `rawValue` is not a valid interface name. The corresponding C function is `dbus_validate_interface`.
    public init?(rawValue: String) {
        guard isValidCString(rawValue), dbus_validate_interface(rawValue, nil) != 0 else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public static let properties = InterfaceName(unchecked: DBUS_INTERFACE_PROPERTIES)
    public static let introspectable = InterfaceName(unchecked: DBUS_INTERFACE_INTROSPECTABLE)
    public static let peer = InterfaceName(unchecked: DBUS_INTERFACE_PEER)

    public var description: String { rawValue }
}

/// An error name such as `org.freedesktop.DBus.Error.InvalidArgs`: what goes on the wire in an error reply.
///
/// An open struct rather than a closed enum (the swift-system `Errno` pattern): services define their
/// own names (`org.snapsize.SizeSelector1.Error.OutOfRange`) next to the standard ones below.
public struct ErrorName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil when `rawValue` is not a valid error name. The corresponding C function is `dbus_validate_error_name`.
    public init?(rawValue: String) {
        guard isValidCString(rawValue), dbus_validate_error_name(rawValue, nil) != 0 else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// A generic failure; also used for program bugs detected while replying.
    public static let failed = ErrorName(unchecked: DBUS_ERROR_FAILED)
    /// Arguments of the wrong type or count, or an invalid value.
    public static let invalidArgs = ErrorName(unchecked: DBUS_ERROR_INVALID_ARGS)
    /// The object has no such method.
    public static let unknownMethod = ErrorName(unchecked: DBUS_ERROR_UNKNOWN_METHOD)
    /// Nothing is exported at that path.
    public static let unknownObject = ErrorName(unchecked: DBUS_ERROR_UNKNOWN_OBJECT)
    /// The object does not implement that interface.
    public static let unknownInterface = ErrorName(unchecked: DBUS_ERROR_UNKNOWN_INTERFACE)
    /// The interface has no such property.
    public static let unknownProperty = ErrorName(unchecked: DBUS_ERROR_UNKNOWN_PROPERTY)
    /// Set was called on a read-only property.
    public static let propertyReadOnly = ErrorName(unchecked: DBUS_ERROR_PROPERTY_READ_ONLY)
    /// The peer did not answer in time (libdbus's pending-call timeout) or went away.
    public static let noReply = ErrorName(unchecked: DBUS_ERROR_NO_REPLY)
    /// The bus name is not owned and cannot be activated.
    public static let serviceUnknown = ErrorName(unchecked: DBUS_ERROR_SERVICE_UNKNOWN)
    /// The bus name has no owner.
    public static let nameHasNoOwner = ErrorName(unchecked: DBUS_ERROR_NAME_HAS_NO_OWNER)
    /// A timeout other than a method-call timeout.
    public static let timeout = ErrorName(unchecked: DBUS_ERROR_TIMEOUT)
    /// The connection is not (or no longer) connected.
    public static let disconnected = ErrorName(unchecked: DBUS_ERROR_DISCONNECTED)
    /// An address could not be parsed or is missing.
    public static let badAddress = ErrorName(unchecked: DBUS_ERROR_BAD_ADDRESS)
    /// The socket an address names does not exist (no bus there).
    public static let fileNotFound = ErrorName(unchecked: DBUS_ERROR_FILE_NOT_FOUND)
    /// Nothing listens at the address.
    public static let noServer = ErrorName(unchecked: DBUS_ERROR_NO_SERVER)
    /// The network the address needs is unreachable.
    public static let noNetwork = ErrorName(unchecked: DBUS_ERROR_NO_NETWORK)
    /// A sender has more waiting than the receiver takes (what dbus-daemon answers a sender past its
    /// limits, and a connection here a sender with too many replies waiting: `OutboxLimits.waitingCallsPerSender`).
    public static let limitsExceeded = ErrorName(unchecked: DBUS_ERROR_LIMITS_EXCEEDED)
    /// The bus refused to authenticate this process.
    public static let authFailed = ErrorName(unchecked: DBUS_ERROR_AUTH_FAILED)

    /// The `org.freedesktop.DBus.Error.Spawn.*` family: the bus tried to start (activate) the
    /// service and that failed (ChildExited, ExecFailed, ServiceNotFound, ...).
    public var isActivationFailure: Bool { rawValue.hasPrefix("org.freedesktop.DBus.Error.Spawn.") }
}

/// libdbus takes C strings; a Swift string with an embedded NUL would silently be cut short there.
func isValidCString(_ s: String) -> Bool {
    // memchr on the contiguous UTF-8 of a native string: the generic `contains` walks it byte by
    // byte, and this runs for every string of every message sent.
    s.utf8.withContiguousStorageIfAvailable { bytes in
        bytes.isEmpty || memchr(bytes.baseAddress!, 0, bytes.count) == nil
    } ?? !s.utf8.contains(0)
}

/// Checks a member (method, signal or property) name. The corresponding C function is `dbus_validate_member`.
func isValidMemberName(_ s: String) -> Bool {
    isValidCString(s) && dbus_validate_member(s, nil) != 0
}
