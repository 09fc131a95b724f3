internal import CDBus
internal import SystemCalls

/// The answer to a method call that is given after its handler has returned: for a call whose
/// truthful answer depends on another peer (the accessibility bus taking the focus events), which
/// the loop must not wait for.
///
/// A handler calls `Connection.answerLater()`; what it returns is then ignored (its outputs are
/// still checked against the table), and exactly one of `succeed` or `fail` answers the call,
/// from the loop's thread, whenever that is (even before the handler returns). A handler that
/// throws after asking answers with its error at once, as any handler does. The answer goes out as
/// any reply does, except that a group commit never holds it (`Outbox` rule 1: it is no part of the
/// group's changes, and an undone group must not turn it into the group's error).
public final class LaterReply {
    private weak var connection: Connection?
    private var call: Message?
    /// An answer given before the dispatcher handed over the call.
    private var early: Result<[DBusValue], MethodError>?
    public private(set) var isAnswered = false

    init(connection: Connection) { self.connection = connection }

    public func succeed(_ values: [DBusValue] = []) { answer(.success(values)) }

    public func fail(_ error: MethodError) { answer(.failure(error)) }

    private func answer(_ result: Result<[DBusValue], MethodError>) {
        guard !isAnswered else { return }
        isAnswered = true
        guard let call else {
            early = result
            return
        }
        send(result, to: call)
    }

    /// The dispatcher hands over the call once the handler has returned (or thrown: `thrown`).
    func attach(_ call: Message, thrown: MethodError?) {
        if let thrown, !isAnswered {
            isAnswered = true
            early = .failure(thrown)
        }
        guard call.expectsReply else { return }
        if let early {
            self.early = nil
            send(early, to: call)
        } else {
            self.call = call
        }
    }

    private func send(_ result: Result<[DBusValue], MethodError>, to call: Message) {
        self.call = nil
        guard let connection, !connection.isClosed else { return }
        let reply: Message
        switch result {
        case .success(let values):
            reply = Message.unaddressedMethodReturn()
            do {
                try reply.append(values)
            } catch {
                writeDiagnostic(
                    "DBusKit: the later reply to \(call.member) is malformed: \(error.message)")
                connection.submit(
                    call.errorReply(MethodError(.failed, "Internal error: malformed reply")),
                    as: .laterReply)
                return
            }
            reply.address(to: dbus_message_get_sender(call.raw))
            reply.answer(call)
        case .failure(let error):
            reply = call.errorReply(error)
        }
        connection.submit(reply, as: .laterReply)
    }
}

extension Connection {
    /// Called from a method handler: the call being dispatched is answered through the returned
    /// `LaterReply`, not by the handler's return value.
    public func answerLater() -> LaterReply {
        let later = LaterReply(connection: self)
        answeringLater = later
        return later
    }

    /// The dispatcher's side: the call just dispatched, if its handler asked to answer later.
    func takeLaterReply(for call: Message, thrown: MethodError?) -> Bool {
        guard let later = answeringLater else { return false }
        answeringLater = nil
        later.attach(call, thrown: thrown)
        return true
    }
}
