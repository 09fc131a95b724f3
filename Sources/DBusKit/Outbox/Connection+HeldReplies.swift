internal import CDBus

/// Replies to one client kept back while something about that client is asked of the bus (see
/// `Connection.callAsync(…holdingRepliesTo:…)`): a client that has its reply may exit at once, and
/// what the daemon wanted to learn from its process (/proc/<pid>/cmdline) goes with it.
struct HeldReplies {
    /// A client pipelining calls faster than the bus answers must not make this grow: past this
    /// many replies its hold is given up and they all go out, in order.
    static let maximumPerClient = 64

    /// Per client: how many holding calls are still pending, and its replies waiting, in order.
    private var clients: [String: (holds: Int, replies: [Message])] = [:]

    var isEmpty: Bool { clients.isEmpty }

    mutating func open(_ client: String) {
        clients[client, default: (0, [])].holds += 1
    }

    /// Ends one hold of `client`; the replies to send now once it held the last one.
    mutating func close(_ client: String) -> [Message] {
        guard var entry = clients[client] else { return [] }
        entry.holds -= 1
        guard entry.holds <= 0 else {
            clients[client] = entry
            return []
        }
        clients[client] = nil
        return entry.replies
    }

    /// Keeps `message` when it is a reply to a held client (true). When that client already has
    /// the maximum waiting, its hold is given up: false, with the replies to send before `message`.
    mutating func keep(_ message: Message) -> (kept: Bool, giveUp: [Message]) {
        let type = message.type
        guard type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR,
              let raw = dbus_message_get_destination(message.raw) else { return (false, []) }
        let destination = String(cString: raw)
        guard var entry = clients[destination] else { return (false, []) }
        guard entry.replies.count < Self.maximumPerClient else {
            clients[destination] = nil
            return (false, entry.replies)
        }
        entry.replies.append(message)
        clients[destination] = entry
        return (true, [])
    }

    /// Every reply waiting, each client's in order; no client is held any more.
    mutating func takeAll() -> [Message] {
        defer { clients = [:] }
        return clients.values.flatMap(\.replies)
    }

    mutating func removeAll() { clients = [:] }
}

extension Connection {
    /// Whether `send` keeps `message` back as a reply to a held client (see `HeldReplies`).
    func holdsReply(_ message: Message) -> Bool {
        let (kept, giveUp) = heldReplies.keep(message)
        for earlier in giveUp { enqueueReply(earlier) }
        return kept
    }

    /// A holding call completed (answered, failed or timed out): what waited for it goes out now,
    /// straight to libdbus. Those replies were released by their own group commit already; going
    /// through `send` again while a later group is being dispatched would tie them to that group,
    /// which could still be undone.
    func releaseReplies(to client: String) {
        let replies = heldReplies.close(client)
        guard !isClosed else { return }
        for reply in replies { enqueueReply(reply) }
    }

    /// Sends every held reply now (`flush`: the last word before closing, when nothing more will
    /// be learned about anyone).
    func releaseAllHeldReplies() {
        guard !heldReplies.isEmpty else { return }
        let replies = heldReplies.takeAll()
        guard !isClosed else { return }
        for reply in replies { enqueueReply(reply) }
    }
}
