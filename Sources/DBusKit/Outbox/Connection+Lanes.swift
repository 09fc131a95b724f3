internal import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// Replies that wait, one lane per destination, while the bus takes what this connection writes
/// more slowly than it delivers calls to it.
///
/// Why here, and not in what is read: dbus-daemon (1.14) walks its whole list of calls awaiting a
/// reply for every call it routes and for every reply it reads, so a flood of pipelined calls
/// makes it read our replies several times more slowly than it delivers the calls (measured: 3,200
/// calls/s in, 800 replies/s out under 4 x 50,000 GetAttributes). Reading is not what is slow;
/// the replies pile up, and libdbus's outgoing queue is one FIFO: another client's reply would wait
/// behind every reply to the flood. So replies are kept back per destination and handed to libdbus
/// in turn (round-robin), a little at a time: another client's reply is next in line, whatever one
/// sender has queued. A sender with `waitingCallsPerSender` replies waiting is refused at once with
/// LimitsExceeded (what dbus-daemon itself answers a sender past its limits); the refusal keeps only
/// the call's serial until it is its turn, so a flood costs a few bytes per call, not a reply each.
struct ReplyLanes {
    /// What one destination waits for, in order: its replies, then its refusals. Once a lane refuses
    /// it refuses until it is empty, so no reply can come after a refusal made before its call.
    struct Lane {
        var messages: [Message] = []
        var messagesTaken = 0
        var refusals: [UInt32] = []
        var refusalsTaken = 0
        var count: Int { messages.count - messagesTaken + refusals.count - refusalsTaken }
        var isRefusing: Bool { refusals.count > refusalsTaken }

        /// Drops what was taken once it is most of the lane: a lane that refuses for as long as a
        /// flood lasts is never empty, and must not keep every serial it ever held.
        mutating func compact() {
            if messagesTaken >= 64, messagesTaken * 2 >= messages.count {
                messages.removeFirst(messagesTaken)
                messagesTaken = 0
            }
            if refusalsTaken >= 1024, refusalsTaken * 2 >= refusals.count {
                refusals.removeFirst(refusalsTaken)
                refusalsTaken = 0
            }
        }
    }

    enum Item {
        case message(Message)
        /// The serial of a call refused at once, for `destination`.
        case refusal(serial: UInt32, destination: String)
    }

    private var lanes: [String: Lane] = [:]
    /// The destinations with something waiting, in the order they take their turns.
    private var ring: [String] = []
    private var turn = 0
    private(set) var messageCount = 0
    private(set) var refusalCount = 0

    var isEmpty: Bool { ring.isEmpty }

    /// How many refusals `destination`'s lane keeps in memory, taken ones included (for tests).
    func storedRefusals(for destination: String) -> Int { lanes[destination]?.refusals.count ?? 0 }

    /// How many replies (and refusals) wait for `destination`.
    func waiting(for destination: String) -> Int { lanes[destination]?.count ?? 0 }

    /// Whether a call from `sender` is refused at once rather than answered.
    func refuses(_ sender: String, limit: Int) -> Bool {
        guard let lane = lanes[sender] else { return false }
        return lane.isRefusing || lane.count >= limit
    }

    mutating func append(_ message: Message, to destination: String) {
        if lanes[destination] == nil { ring.append(destination) }
        lanes[destination, default: Lane()].messages.append(message)
        messageCount += 1
    }

    mutating func refuse(serial: UInt32, of sender: String) {
        if lanes[sender] == nil { ring.append(sender) }
        lanes[sender, default: Lane()].refusals.append(serial)
        refusalCount += 1
    }

    /// The next destination's oldest item; a lane that empties is dropped (its memory with it).
    mutating func takeNext() -> Item? {
        guard !ring.isEmpty else { return nil }
        if turn >= ring.count { turn = 0 }
        let destination = ring[turn]
        guard var lane = lanes.removeValue(forKey: destination) else { return nil }
        let item: Item
        if lane.messagesTaken < lane.messages.count {
            item = .message(lane.messages[lane.messagesTaken])
            lane.messagesTaken += 1
            messageCount -= 1
        } else {
            item = .refusal(serial: lane.refusals[lane.refusalsTaken], destination: destination)
            lane.refusalsTaken += 1
            refusalCount -= 1
        }
        if lane.count == 0 {
            ring.remove(at: turn)
        } else {
            lane.compact()
            lanes[destination] = lane
            turn += 1
        }
        return item
    }
}

extension Connection {
    /// Bytes in libdbus's outgoing queue above which replies start waiting in their lanes
    /// (`ReplyLanes`), until the lanes are empty: a backlog, not a busy moment (with 32 calls in
    /// flight a group's replies and signals are some 25 KiB).
    public static let lanesEngageLimit = backlogLimit

    /// Bytes in libdbus's outgoing queue up to which waiting replies are handed to it: small, so
    /// that a reply given its turn is soon on the socket; smaller while a sender is refused (a
    /// flood: the bus then takes replies slowly). Small limits and a small socket buffer also
    /// mean more writes, which cost make bench's calls/s with 32 in flight (1.23x the floor against
    /// 1.35x) when they applied to every backlog rather than to a flood alone.
    public static let laneLimit = 16 * 1024
    public static let floodLaneLimit = 4 * 1024

    /// Replies (and refusals) waiting for one destination at which its further calls are refused
    /// with LimitsExceeded until its lane is empty. Well above what a client waiting for its answers
    /// has in flight (bench: 32).
    public static let waitingCallsPerSender = 128

    /// Replies waiting in all lanes above which the connection stops reading (as for
    /// `readingPauseLimit`): many senders each under their bound must not grow the process either.
    /// Counted, not measured (libdbus tells a message's size only once it is queued): the largest
    /// reply here, an Introspect of about 5.5 KiB, makes this some 5.5 MiB at most (4,096 would allow
    /// 22 MiB were the per-sender bound ever lifted).
    static let laneMessageLimit = 1024
    /// Refusals waiting in all lanes (4 bytes each) above which the connection stops reading.
    static let laneRefusalLimit = 1 << 18

    /// Whether the lanes hold more than their limits allow (the event loop then stops reading).
    var lanesFull: Bool {
        lanes.messageCount > Self.laneMessageLimit || lanes.refusalCount > Self.laneRefusalLimit
    }

    /// Whether the lanes are down to half their limits.
    var lanesDrained: Bool {
        lanes.messageCount <= Self.laneMessageLimit / 2 && lanes.refusalCount <= Self.laneRefusalLimit / 2
    }

    /// Refuses `call` at once when its sender already has `waitingCallsPerSender` replies waiting;
    /// true when it did (the call's handler does not run).
    func refusesOverLimit(_ call: Message) -> Bool {
        guard usesLanes, !lanes.isEmpty, call.expectsReply else { return false }
        let sender = call.sender
        guard lanes.refuses(sender, limit: Self.waitingCallsPerSender) else { return false }
        lanes.refuse(serial: dbus_message_get_serial(call.raw), of: sender)
        return true
    }

    /// Puts a reply in its destination's lane (`send` asks only while `usesLanes`: every reply then
    /// waits its turn, and one to a destination that has replies waiting stays behind them); false
    /// for anything but a reply.
    func queuesInLane(_ message: Message) -> Bool {
        let type = message.type
        guard type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR,
              let destination = message.destination else { return false }
        lanes.append(message, to: destination)
        return true
    }

    /// Hands a reply straight to libdbus (not through `send`, so no group holds it), unless replies to
    /// its destination wait in a lane: then it waits behind them, so that client's replies stay in order.
    func enqueueReply(_ message: Message) {
        if !lanes.isEmpty, let destination = message.destination, lanes.waiting(for: destination) > 0 {
            lanes.append(message, to: destination)
        } else {
            enqueue(message)
        }
    }

    /// Hands waiting replies to libdbus in turn while its queue is under `laneLimit` (every one of
    /// them with `all`, before a closing flush).
    func releaseLanes(all: Bool = false) {
        guard !lanes.isEmpty, !isClosed else { return }
        let limit = sendBuffer.isSmall ? Self.floodLaneLimit : Self.laneLimit
        while all || queuedBytes <= limit, let item = lanes.takeNext() {
            switch item {
            case .message(let message):
                enqueue(message)
            case .refusal(let serial, let destination):
                enqueue(Message.refusal(answering: serial, destination: destination,
                                        MethodError(.limitsExceeded, refusalText(destination))))
            }
        }
    }

    private func refusalText(_ sender: String) -> String {
        "Too many calls from \(sender) are waiting for their replies (\(Self.waitingCallsPerSender)): "
            + "the replies are not being read; read them before sending more calls"
    }
}

/// The kernel's buffer for what a connection writes to its bus, made small while a sender is
/// refused (`Connection.waitingCallsPerSender`). Its default, about 208 KiB, is over a second of replies when a flooded bus takes 800 a
/// second: a reply given its turn (`ReplyLanes`) would still wait behind all of them (measured,
/// 4 x 50,000 GetAttributes: the other caller's worst 2.8 s with it, 0.4-0.6 s with 4 KiB). Small
/// only then: with 32 calls in flight a small buffer made more writes (make bench: server CPU per
/// call 0.84x the floor against 0.70x).
struct SocketSendBuffer {
    /// Bytes asked for while flooded (the kernel doubles the figure).
    static let small: Int32 = 4 * 1024

    private var fd: Int32 = -1
    /// What the kernel had (half what it reports: it doubles what is set).
    private var normal: Int32 = 0
    private(set) var isSmall = false

    init() {}

    init(_ connection: OpaquePointer) {
        var fd: Int32 = -1
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard dbus_connection_get_socket(connection, &fd) != 0, fd >= 0,
              getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0, size > 0 else { return }
        self.fd = fd
        normal = size / 2
    }

    /// Makes the buffer small while `flooded`, as it was otherwise.
    mutating func fit(flooded: Bool) {
        guard flooded != isSmall, fd >= 0 else { return }
        var size = flooded ? Self.small : normal
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        isSmall = flooded
    }
}

extension Message {
    var destination: String? { string(dbus_message_get_destination(raw)) }
    var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// An error answering the call with `serial` from `destination`, made without the call itself.
    static func refusal(answering serial: UInt32, destination: String, _ error: MethodError) -> Message {
        guard let reply = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR) else { outOfMemory("dbus_message_new") }
        let message = Message(adopting: reply)
        dbus_message_set_no_reply(reply, 1)
        checkMemory(dbus_message_set_error_name(reply, error.name.rawValue), "dbus_message_set_error_name")
        checkMemory(dbus_message_set_reply_serial(reply, serial), "dbus_message_set_reply_serial")
        checkMemory(dbus_message_set_destination(reply, destination), "dbus_message_set_destination")
        try? message.append([.string(error.message)])
        return message
    }
}
