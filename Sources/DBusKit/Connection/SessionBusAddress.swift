internal import CDBus
internal import CPOSIX
#if canImport(Glibc)
    import Glibc
#endif

/// Where the session bus is, found the way libsystemd (`sd_bus_open_user`), GDBus and libdbus's own
/// `dbus_bus_get` find it: `DBUS_SESSION_BUS_ADDRESS`, else the socket `$XDG_RUNTIME_DIR/bus` that
/// Debian's dbus-user-session (systemd's per-user bus) provides. That fallback is what makes cron
/// jobs, `sudo -u`, `su -` and containers with the runtime directory mounted reach the user's bus.
public struct SessionBusAddress: Equatable, Sendable {
    public enum Source: Equatable, Sendable {
        /// `DBUS_SESSION_BUS_ADDRESS`.
        case environment
        /// `$XDG_RUNTIME_DIR/bus`, at this path, because the variable was not set.
        case runtimeDirectory(path: String)
    }

    public let address: String
    public let source: Source

    /// The address to use, or nil when there is none. Like libdbus, the fallback counts only when
    /// `$XDG_RUNTIME_DIR/bus` is a socket owned by this user.
    public static func find(environment: [String: String]) -> SessionBusAddress? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            return SessionBusAddress(address: address, source: .environment)
        }
        guard let path = runtimeSocketPath(environment: environment), isOwnSocket(path),
            let escaped = escape(path)
        else { return nil }
        return SessionBusAddress(address: "unix:path=" + escaped, source: .runtimeDirectory(path: path))
    }

    /// `$XDG_RUNTIME_DIR/bus`, whether or not it exists; nil when XDG_RUNTIME_DIR is unset or relative.
    public static func runtimeSocketPath(environment: [String: String]) -> String? {
        guard let directory = environment["XDG_RUNTIME_DIR"], directory.hasPrefix("/") else {
            return nil
        }
        return directory + (directory.hasSuffix("/") ? "bus" : "/bus")
    }

    /// Where the address came from, for messages: "DBUS_SESSION_BUS_ADDRESS" or "$XDG_RUNTIME_DIR/bus".
    public var origin: String {
        switch source {
        case .environment: return "DBUS_SESSION_BUS_ADDRESS"
        case .runtimeDirectory: return "$XDG_RUNTIME_DIR/bus"
        }
    }

    /// Why `find` found nothing, as one clause for error messages.
    public static func absence(environment: [String: String]) -> String {
        guard let path = runtimeSocketPath(environment: environment) else {
            return "DBUS_SESSION_BUS_ADDRESS is not set, and neither is XDG_RUNTIME_DIR"
        }
        return "DBUS_SESSION_BUS_ADDRESS is not set, and there is no session bus socket at \(path)"
    }

    static func isOwnSocket(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return cposix_is_socket(info.st_mode) && info.st_uid == getuid()
    }

    /// The path as a D-Bus address value (`dbus_address_escape_value`: `%XX` for anything unusual).
    static func escape(_ value: String) -> String? {
        guard isValidCString(value), let escaped = dbus_address_escape_value(value) else { return nil }
        defer { dbus_free(escaped) }
        return String(cString: escaped)
    }
}

extension Connection {
    /// Connects to the session bus found by `SessionBusAddress.find` in `environment`.
    public static func session(environment: [String: String]) throws(MethodError) -> Connection {
        guard let found = SessionBusAddress.find(environment: environment) else {
            throw MethodError(.badAddress, SessionBusAddress.absence(environment: environment))
        }
        return try Connection(address: found.address)
    }
}
