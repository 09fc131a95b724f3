internal import CDBus

/// libdbus's outgoing queue of one connection: the one place a reply, error or signal is handed to
/// libdbus (`dbus_connection_send`), always by the connection's `Outbox`.
struct ConnectionWire: OutboxWire {
    let raw: OpaquePointer

    var queuedBytes: Int { Int(dbus_connection_get_outgoing_size(raw)) }

    func hand(_ message: Message) {
        checkMemory(dbus_connection_send(raw, message.raw, nil), "dbus_connection_send")
    }
}

/// The connection's side of its `Outbox`: each operation with libdbus as the wire.
extension Connection {
    var wire: ConnectionWire { ConnectionWire(raw: raw) }

    /// Bytes queued for sending and not yet written. The corresponding C function is
    /// `dbus_connection_get_outgoing_size`.
    public var queuedBytes: Int { wire.queuedBytes }

    /// Sends `message` as the outbox's rules say: now, or once what holds it lets go.
    func submit(_ message: Message, as kind: Outgoing) {
        outbox.submit(message, as: kind, to: wire)
    }

    /// Ends the group the event loop opened (`Outbox.beginGroup`), reporting each call answered
    /// as it was although the group was undone (`onUndoneReply`).
    func endGroup(undone: MethodError?) {
        let answeredAnyway = outbox.endGroup(
            undone: undone, answeringWithErrors: answersUndoneCallsWithErrors, to: wire)
        guard let undone, let onUndoneReply else { return }
        for member in answeredAnyway { onUndoneReply(member, undone) }
    }

    /// Keeps back every reply to `client` until as many `releaseReplies(to:)`, as a call made with
    /// `callAsync(…holdingRepliesTo:…)` does while it is pending: for what is learned about a client
    /// after that call, off the loop (its process's command line). The caller bounds the hold.
    public func holdReplies(to client: String) {
        outbox.hold(repliesTo: client)
    }

    /// A call or a hold about `client` ended (answered, failed or timed out): its replies go on,
    /// once no other hold keeps them.
    public func releaseReplies(to client: String) {
        guard !isClosed else { return }
        outbox.release(repliesTo: client, to: wire)
    }

    /// After a round of dispatching: what waited for libdbus's queue to shorten goes now.
    func handWaiting() {
        guard !isClosed else { return }
        outbox.handWaiting(to: wire)
    }

    /// Once a round, before the loop sleeps: the outbox decides from the queue's length whether to
    /// hold and whether to stop reading, and the socket's send buffer follows.
    func afterRound() {
        outbox.afterRound(queuedBytes: queuedBytes)
        sendBuffer.fit(small: outbox.wantsSmallSocketBuffer, size: outbox.limits.smallSocketBuffer)
    }
}
