internal import CDBus

/// Client side: calling methods on other bus peers.
extension Connection {
    /// Calls a method and blocks until the reply arrives, the timeout expires or the bus goes away.
    ///
    /// Incoming messages are queued (not dispatched) while blocking, so never use this towards a
    /// peer that may call back into this connection synchronously; use `callAsync` there.
    /// A timeout of -1 means libdbus's default (25 s). The corresponding C function is
    /// `dbus_connection_send_with_reply_and_block`.
    public func call(
        destination: String, path: ObjectPath, interface: String?, member: String,
        arguments: [DBusValue] = [], timeoutMilliseconds: Int32 = -1
    ) throws(MethodError) -> [DBusValue] {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member)
        try message.append(arguments)
        guard isConnected else { throw MethodError(.disconnected, "Connection is closed") }
        let reply = try withDBusError { error in
            dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, error)
        }
        guard let reply else { throw MethodError(.failed, "no reply message") }
        return try Message(adopting: reply).arguments()
    }

    /// Sends a method call and returns at once; `reply` runs exactly once, later, from the event loop's
    /// dispatch on the owning thread: with the reply's values, the peer's error, or a NoReply error
    /// when `timeoutMilliseconds` passes (libdbus's pending-call timeout, driven by the event loop).
    ///
    /// With `holdingRepliesTo`, every reply (method return or error) this connection sends to that
    /// client meanwhile is kept back, in order, until `reply` has run, so at most
    /// `timeoutMilliseconds` (pass a short one): for learning something about a client that it could
    /// take away once it has its answer, such as its process.
    ///
    /// Throws (and never calls `reply`) when the call could not be sent at all.
    /// The corresponding C functions are `dbus_connection_send_with_reply` and `dbus_pending_call_set_notify`.
    public func callAsync(
        destination: String, path: ObjectPath, interface: String?, member: String,
        arguments: [DBusValue] = [], timeoutMilliseconds: Int32 = -1,
        holdingRepliesTo client: String? = nil,
        reply: @escaping (Result<[DBusValue], MethodError>) -> Void
    ) throws(MethodError) {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member)
        try message.append(arguments)
        guard isConnected else { throw MethodError(.disconnected, "Connection is closed") }
        var pending: OpaquePointer? = nil
        checkMemory(
            dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMilliseconds),
            "dbus_connection_send_with_reply")
        guard let pending else { throw MethodError(.disconnected, "Connection is not connected") }
        var handler = reply
        if let client {
            outbox.hold(repliesTo: client)
            handler = { [weak self] result in
                reply(result)
                self?.releaseReplies(to: client)
            }
        }
        let box = Unmanaged.passRetained(PendingReply(handler)).toOpaque()
        checkMemory(
            dbus_pending_call_set_notify(pending, pendingTrampoline, box, pendingReleaseTrampoline),
            "dbus_pending_call_set_notify")
        // The connection keeps its own reference until the call completes and the notify has run.
        dbus_pending_call_unref(pending)
    }
}

/// The reply handler of one pending call, guarded so it runs at most once.
final class PendingReply {
    private var handler: ((Result<[DBusValue], MethodError>) -> Void)?

    init(_ handler: @escaping (Result<[DBusValue], MethodError>) -> Void) { self.handler = handler }

    func complete(_ pending: OpaquePointer) {
        guard let handler else { return }
        self.handler = nil
        guard let raw = dbus_pending_call_steal_reply(pending) else {
            handler(.failure(MethodError(.noReply, "Pending call completed without a reply")))
            return
        }
        let message = Message(adopting: raw)
        if message.isError {
            handler(.failure(message.methodError))
        } else {
            handler(Result { () throws(MethodError) in try message.arguments() })
        }
    }
}

/// The one trampoline for pending-call notifications; `userData` is a retained `PendingReply`.
private let pendingTrampoline: DBusPendingCallNotifyFunction = { pending, userData in
    guard let pending, let userData else { return }
    Unmanaged<PendingReply>.fromOpaque(userData).takeUnretainedValue().complete(pending)
}

/// Releases the `PendingReply` when libdbus frees the pending call.
private let pendingReleaseTrampoline: DBusFreeFunction = { userData in
    guard let userData else { return }
    Unmanaged<PendingReply>.fromOpaque(userData).release()
}
