import CDBus
import Glibc
import SizeSelectorContract
import SystemCalls

/// The benchmark's side of the bus: plain libdbus, the same few calls for every server measured,
/// so the client costs the same whichever server answers. (DBusKit is the code under test; a
/// client built on it would add its own costs to the daemon's figures and the floor's alike.)
final class BusClient {
    let raw: OpaquePointer

    init(address: String) throws(BenchError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let opened = dbus_connection_open_private(address, &error) else {
            throw BenchError("cannot connect to \(address): \(Self.text(error))")
        }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        guard dbus_bus_register(opened, &error) != 0 else {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw BenchError("Hello failed on \(address): \(Self.text(error))")
        }
        raw = opened
    }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    private static func text(_ error: DBusError) -> String {
        error.message.map { String(cString: $0) } ?? "unknown error"
    }

    // MARK: Match rules and names (set-up only: these block for a round trip)

    func addMatch(_ rule: String) throws(BenchError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(raw, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw BenchError("AddMatch \(rule): \(Self.text(error))") }
    }

    func removeMatch(_ rule: String) {
        dbus_bus_remove_match(raw, rule, nil)
        dbus_connection_flush(raw)
    }

    /// The unique name owning `name`, or nil.
    func owner(of name: String) -> String? {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard
            let call = dbus_message_new_method_call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus", "GetNameOwner")
        else { return nil }
        defer { dbus_message_unref(call) }
        name.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            _ = dbus_message_append_args_one_string(call, &p)
        }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, call, 5000, &error) else {
            return nil
        }
        defer { dbus_message_unref(reply) }
        return Self.strings(reply).first
    }

    // MARK: Calls

    /// A new Increment (or Decrement) call to `destination`; the caller owns the reference.
    static func stepCall(to destination: String, increment: Bool) -> OpaquePointer {
        dbus_message_new_method_call(
            destination, Contract.path, Contract.interface,
            increment ? "Increment" : "Decrement")!
    }

    /// One synchronous call; false when the answer was an error or never came.
    func callAndWait(_ destination: String, increment: Bool) -> Bool {
        let call = Self.stepCall(to: destination, increment: increment)
        defer { dbus_message_unref(call) }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, call, 5000, nil) else {
            return false
        }
        defer { dbus_message_unref(reply) }
        return dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_METHOD_RETURN
    }

    /// Queues a call and writes it out now, without waiting for the answer.
    func sendNow(_ destination: String, increment: Bool) {
        send(destination, increment: increment)
        dbus_connection_flush(raw)
    }

    /// Queues a call (libdbus tries a non-blocking write at once).
    func send(_ destination: String, increment: Bool) {
        let call = Self.stepCall(to: destination, increment: increment)
        dbus_connection_send(raw, call, nil)
        dbus_message_unref(call)
    }

    /// Blocks until `count` replies (returns or errors) have arrived; returns how many were errors.
    /// Anything else that arrives is dropped.
    @discardableResult
    func awaitReplies(_ count: Int) -> Int {
        var received = 0, errors = 0
        while received < count {
            let (replies, failed) = popReplies()
            received += replies
            errors += failed
            if received < count, dbus_connection_read_write(raw, 5000) == 0 {
                return errors + count - received
            }
        }
        return errors
    }

    /// Takes every queued message off the connection; counts replies and error replies.
    func popReplies() -> (replies: Int, errors: Int) {
        var replies = 0, errors = 0
        while let message = dbus_connection_pop_message(raw) {
            switch dbus_message_get_type(message) {
            case DBUS_MESSAGE_TYPE_METHOD_RETURN: replies += 1
            case DBUS_MESSAGE_TYPE_ERROR: replies += 1; errors += 1
            default: break
            }
            dbus_message_unref(message)
        }
        return (replies, errors)
    }

    /// Throws away everything already received, without blocking.
    func drain() {
        while dbus_connection_read_write(raw, 0) != 0, let message = dbus_connection_pop_message(raw) {
            dbus_message_unref(message)
        }
        while let message = dbus_connection_pop_message(raw) { dbus_message_unref(message) }
    }

    // MARK: Signals

    /// Waits up to `timeout` seconds for a signal `member` from `sender` (nil: any sender) whose
    /// leading string arguments satisfy `arguments`; returns the CLOCK_MONOTONIC time it was read.
    func awaitSignal(
        member: String, sender: String?, timeout: Double,
        arguments: ([String]) -> Bool = { _ in true }
    ) -> Double? {
        let deadline = monotonicNow() + timeout
        while true {
            while let message = dbus_connection_pop_message(raw) {
                defer { dbus_message_unref(message) }
                guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL,
                    let got = dbus_message_get_member(message), String(cString: got) == member
                else { continue }
                if let sender, let from = dbus_message_get_sender(message),
                    String(cString: from) != sender
                {
                    continue
                }
                if arguments(Self.strings(message)) { return monotonicNow() }
            }
            let left = deadline - monotonicNow()
            if left <= 0 { return nil }
            if dbus_connection_read_write(raw, Int32(min(left * 1000 + 1, 5000))) == 0 { return nil }
        }
    }

    /// The leading string arguments of `message`.
    static func strings(_ message: OpaquePointer) -> [String] {
        var iter = DBusMessageIter()
        var found: [String] = []
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        while dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_STRING {
            var pointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iter, &pointer)
            found.append(pointer.map { String(cString: $0) } ?? "")
            dbus_message_iter_next(&iter)
        }
        return found
    }
}

/// Appends one string argument (dbus_message_append_args is variadic, which Swift cannot call).
private func dbus_message_append_args_one_string(
    _ message: OpaquePointer, _ value: inout UnsafePointer<CChar>?
) -> dbus_bool_t {
    var iter = DBusMessageIter()
    dbus_message_iter_init_append(message, &iter)
    return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_STRING, &value)
}

/// A failure that stops the benchmark, with a sentence for stderr.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What every server measured serves: the contract's path and interface, as plain strings for libdbus.
enum Contract {
    static let path = SelectorBus.path.rawValue
    static let interface = SelectorBus.interface.rawValue
}

/// Blocks until the connection can read or write, then does so; false when it is gone.
func dbus_read_write(_ client: BusClient) -> Bool {
    dbus_connection_read_write(client.raw, 5000) != 0
}
