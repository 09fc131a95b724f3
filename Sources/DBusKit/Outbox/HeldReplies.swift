/// Replies to one client kept back while something about that client is asked of the bus (`Outbox`
/// rule 2, `Connection.callAsync(…holdingRepliesTo:…)`): a client that has its reply may exit at once, and
/// what the daemon wanted to learn from its process (/proc/<pid>/cmdline) goes with it.
struct HeldReplies {
    /// Per client: how many holding calls are still pending, and its replies waiting, in order.
    private var clients: [String: (holds: Int, replies: [Message])] = [:]
    /// Replies kept, over all clients.
    private var kept = 0

    var isEmpty: Bool { clients.isEmpty }
    /// Whether a client is waiting for a reply kept here (not merely held, with nothing asked yet).
    var keepsAReply: Bool { kept > 0 }

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
        kept -= entry.replies.count
        return entry.replies
    }

    /// Keeps the reply `message` when its destination is a held client (true). When that client
    /// already has `limit` waiting, its hold is given up: false, with the replies to send before
    /// `message`.
    mutating func keep(_ message: Message, limit: Int) -> (kept: Bool, giveUp: [Message]) {
        guard let destination = message.destination, var entry = clients[destination] else {
            return (false, [])
        }
        guard entry.replies.count < limit else {
            clients[destination] = nil
            kept -= entry.replies.count
            return (false, entry.replies)
        }
        entry.replies.append(message)
        kept += 1
        clients[destination] = entry
        return (true, [])
    }

    /// Every reply waiting, each client's in order; no client is held any more.
    mutating func takeAll() -> [Message] {
        defer {
            clients = [:]
            kept = 0
        }
        return clients.values.flatMap(\.replies)
    }
}
