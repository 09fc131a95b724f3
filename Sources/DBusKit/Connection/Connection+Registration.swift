internal import CDBus

/// A connection to a bus being set up in the background while its owner does other start-up work
/// (make bench: exec -> name owned). libdbus authenticates in two round trips (AUTH EXTERNAL -> OK,
/// NEGOTIATE_UNIX_FD -> AGREE_UNIX_FD) before it writes a message; `init(address:)` connects, queues
/// `Hello` and writes the AUTH line without waiting, each `advance()` moves the exchange on by what
/// the bus has answered meanwhile (never waiting), and `finish(requesting:)` sends RequestName and
/// waits for both answers. Nothing here asks for a name before `finish`: dropping a registration
/// (say, the options turned out wrong) only closes the connection.
public final class BusRegistration {
    private var raw: OpaquePointer?
    private let hello: OpaquePointer

    /// Connects to the bus at `address` (a unix socket connects at once, even to a bus that does not
    /// answer) and starts authenticating. Throws when the connection cannot be made.
    public init(address: String) throws(MethodError) {
        let opened = try Connection.open(address)
        do throws(MethodError) {
            let message = try Message.methodCall(
                destination: BusName.bus.rawValue, path: .bus,
                interface: InterfaceName.bus.rawValue, member: "Hello")
            var pending: OpaquePointer? = nil
            checkMemory(
                dbus_connection_send_with_reply(opened, message.raw, &pending, -1),
                "dbus_connection_send_with_reply")
            guard let pending else { throw MethodError(.disconnected, "Connection is not connected") }
            hello = pending
        } catch {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw error
        }
        raw = opened
        advance()
    }

    /// Reads and writes what the socket allows right now, without waiting: the authentication goes
    /// on as far as the bus has answered, and Hello goes out once it is done.
    public func advance() {
        guard let raw else { return }
        _ = dbus_connection_read_write(raw, 0)
    }

    /// Sends RequestName for `name` (never queued, as `requestName`) right behind Hello and waits for
    /// both answers. Throws when the connection or Hello failed; `owned` is whether this connection
    /// now owns `name`, or why the bus refused to say. Call once.
    public func finish(requesting name: BusName) throws(MethodError)
        -> (connection: Connection, owned: Result<Bool, MethodError>)
    {
        guard let opened = raw else { throw MethodError(.disconnected, "Connection is not connected") }
        raw = nil
        let owned: Result<Bool, MethodError>
        do throws(MethodError) {
            let flags = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE)
            owned = Result { () throws(MethodError) in
                let result = try withDBusError { error in
                    dbus_bus_request_name(opened, name.rawValue, flags, error)
                }
                return result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
                    || result == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER
            }
            // Hello's answer came first; this only takes it (or waits, should RequestName have failed early).
            dbus_pending_call_block(hello)
            guard let reply = dbus_pending_call_steal_reply(hello) else {
                throw MethodError(.noReply, "Hello had no answer")
            }
            let answer = Message(adopting: reply)
            if answer.isError { throw answer.methodError }
            let values = try answer.arguments()
            guard values.count == 1, let unique = values[0].asString, !unique.isEmpty else {
                throw MethodError(
                    .failed, "The bus answered Hello with signature '\(signature(of: values))'")
            }
            checkMemory(dbus_bus_set_unique_name(opened, unique), "dbus_bus_set_unique_name")
        } catch {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw error
        }
        return (Connection(opened: opened), owned)
    }

    deinit {
        dbus_pending_call_unref(hello)
        if let raw {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
        }
    }
}

extension BusRegistration {
    /// Starts registering with the session bus found by `SessionBusAddress.find` in `environment`.
    public static func session(environment: [String: String]) throws(MethodError) -> BusRegistration {
        guard let found = SessionBusAddress.find(environment: environment) else {
            throw MethodError(.badAddress, SessionBusAddress.absence(environment: environment))
        }
        return try BusRegistration(address: found.address)
    }
}
