// What leaves a connection, and when: every reply, error and signal a `Connection` sends goes
// through its one `Outbox`, and only the outbox hands messages to libdbus (`OutboxWire`). The calls
// the connection makes (`call`, `callAsync`) are not held by anything and go to libdbus directly.
//
// The rules, in order of precedence: the first that applies to a message decides.
//
// 1. Group. While a group is open (the event loop dispatching a group commit,
//    `EventLoop.groupCommit`), every reply and signal waits for the group's end, in order: nothing
//    is answered before the group's changes are durable. A later reply (`LaterReply`) skips this
//    rule only: it is no part of the group's changes. When the group ends undone, its signals are
//    dropped and its method returns become the group's error (on a connection that never answers
//    with an error: their `undoneReply`, or themselves); then each goes on to the rules below.
// 2. Held client. A reply or error to a client whose replies are held (`hold(repliesTo:)`, while a
//    call about that client is pending) waits until it is released (meanwhile the event loop polls
//    without sleeping, for at most `EventLoop.heldReplyPollSeconds`). Past
//    `maximumHeldPerClient` the hold is given up. Released replies go on to rule 3, but join a lane
//    only behind replies already waiting there, so that each client's replies stay in order.
// 3. Lane. While replies are backed up (libdbus's queue over `lanesEngageLimit` at the last round,
//    or replies already waiting), each reply waits in its destination's lane. After each round the
//    lanes hand replies to libdbus in turn, one per destination, while its queue is short. A call
//    from a sender with `waitingCallsPerSender` replies waiting is refused with LimitsExceeded
//    (`refuses(_:)`), and the refusal waits its turn in the lane like a reply.
// 4. Merged state. Signals skip rules 2 and 3 (events still flow during a flood; a signal may then
//    reach a client before a reply sent to it earlier). A `.state` signal sent while the bus is
//    backed up (queue over `backlogLimit` at the last round, replies waiting in lanes, or signals
//    already held) is held, replacing an earlier one with the same latest-key
//    (`HeldSignals.key(of:)`); the held ones go out, in the order of their latest, once the queue is
//    down to half that limit, or while replies wait in lanes, once a round ahead of them as far as
//    the lanes' own limit: the bus reads each connection in turn, a few KiB at a time, so during a
//    flood every byte of a signal per change is a reply less. An `.event` is never merged or held:
//    it goes out at once, behind the state signals held before it.
//
// Otherwise a message goes to libdbus at once. After each round the loop also asks
// `afterRound(queuedBytes:)` whether to stop reading the connection and whether to make its socket's
// send buffer small. Each limit named here is a field of `OutboxLimits`.

/// Where the outbox hands messages: libdbus's outgoing queue (`Connection.wire`), or a test's fake.
protocol OutboxWire {
    /// Bytes handed and not yet written.
    var queuedBytes: Int { get }
    func hand(_ message: Message)
}

/// What a message given to the outbox is.
enum Outgoing {
    /// A method return, addressed to its caller.
    case reply
    /// An error reply, addressed to its caller.
    case error
    /// A method return or error given after its handler returned (`LaterReply`): no group holds it.
    case laterReply
    /// A signal, which may be merged with a later one while the bus is backed up (`.state`) or not.
    case signal(SignalKind)
}

/// Every message a connection has not handed to libdbus yet, with the state that decides when it
/// goes (the rules above), in the shape of swift-nio's `PendingStreamWritesState`. A value: the
/// connection holds one, and the tests drive one with fake messages and a fake wire.
///
/// The operations: `submit` a message; `beginGroup` and `endGroup`; `hold(repliesTo:)` and
/// `release(repliesTo:)`; `refuses(_:)` for an incoming call; after each round of dispatching,
/// `handWaiting` and then, before the loop sleeps, `afterRound`; `drainAll` before a closing
/// flush, `discardWaiting` when the connection closes.
struct Outbox {
    let limits: OutboxLimits

    /// Rule 1: whether a group is open, and what it holds.
    private(set) var isGroupOpen = false
    private var group: [(message: Message, kind: Outgoing)] = []
    /// Rule 2.
    private var heldReplies = HeldReplies()
    /// Rule 3, and whether replies go to the lanes now (decided once a round, so that it alone is
    /// checked per reply).
    private var lanes = ReplyLanes()
    private var usesLanes = false
    /// Rule 4, and whether the queue was over `backlogLimit` at the last round.
    private var heldSignals = HeldSignals()
    private var backlogged = false
    /// What the last `afterRound` decided.
    private(set) var pausesReading = false
    private(set) var wantsSmallSocketBuffer = false

    init(limits: OutboxLimits = .standard) { self.limits = limits }

    /// Whether anything is backed up on this connection (the loop gives memory back once nothing is).
    var isBackedUp: Bool { pausesReading || backlogged || usesLanes }

    /// Whether a client is waiting for a reply held for it (rule 2): the event loop then polls
    /// without sleeping for a moment (`EventLoop.heldReplyPollSeconds`).
    var keepsAHeldReply: Bool { heldReplies.keepsAReply }

    /// How many state signals are held (for tests).
    var heldSignalCount: Int { heldSignals.count }

    // MARK: Submitting

    /// Takes `message`: holds it as the rules say, or hands it to `wire` now.
    mutating func submit<Wire: OutboxWire>(_ message: Message, as kind: Outgoing, to wire: Wire) {
        if isGroupOpen, !kind.skipsGroup {
            group.append((message, kind))
            return
        }
        pass(message, kind, wire)
    }

    /// Rules 2 to 4, for a message that no group holds.
    private mutating func pass<Wire: OutboxWire>(_ message: Message, _ kind: Outgoing, _ wire: Wire) {
        switch kind {
        case .signal(.state):
            if backlogged || usesLanes || !heldSignals.isEmpty {
                heldSignals.hold(message, key: HeldSignals.key(of: message))
                return
            }
        case .signal(.event):
            if !heldSignals.isEmpty {
                for held in heldSignals.takeAll() { wire.hand(held) }
            }
        case .reply, .error, .laterReply:
            if !heldReplies.isEmpty {
                let (kept, givenUp) = heldReplies.keep(message, limit: limits.maximumHeldPerClient)
                for earlier in givenUp { passReleased(earlier, wire) }
                if kept { return }
            }
            if usesLanes, let destination = message.destination {
                lanes.append(message, to: destination)
                return
            }
        }
        wire.hand(message)
    }

    /// A reply let go by a held client: behind its destination's lane when that has replies
    /// waiting, so that the client's replies stay in order; otherwise to libdbus now.
    private mutating func passReleased<Wire: OutboxWire>(_ reply: Message, _ wire: Wire) {
        if !lanes.isEmpty, let destination = reply.destination, lanes.waiting(for: destination) > 0 {
            lanes.append(reply, to: destination)
        } else {
            wire.hand(reply)
        }
    }

    // MARK: Groups (rule 1)

    mutating func beginGroup() { isGroupOpen = true }

    /// Closes the group and lets what it held go on, in order (rules 2 to 4). When the group was
    /// `undone`, nothing it announced happened: its signals are dropped, and each method return
    /// becomes `undone` (with `answeringWithErrors`) or else its `Message.undone` reply, if any.
    /// Returns the members of the calls answered without the error although their group was undone.
    mutating func endGroup<Wire: OutboxWire>(
        undone: MethodError?, answeringWithErrors: Bool,
        to wire: Wire
    ) -> [String] {
        isGroupOpen = false
        guard !group.isEmpty else { return [] }
        var answeredAnyway: [String] = []
        for (message, kind) in group {
            guard let undone else {
                pass(message, kind, wire)
                continue
            }
            switch kind {
            case .signal:
                continue
            case .reply where answeringWithErrors:
                pass(message.errorInsteadOfReturn(undone), .error, wire)
            case .reply:
                if let (member, reply) = message.undone {
                    answeredAnyway.append(member)
                    pass(reply.map(message.returnInstead) ?? message, .reply, wire)
                } else {
                    pass(message, kind, wire)
                }
            case .error, .laterReply:
                pass(message, kind, wire)
            }
        }
        group.removeAll(keepingCapacity: true)
        return answeredAnyway
    }

    // MARK: Held clients (rule 2)

    /// Holds the replies to `client` from now until a matching `release(repliesTo:)`; holds nest.
    mutating func hold(repliesTo client: String) { heldReplies.open(client) }

    /// Ends one hold of `client`; once it was the last, its replies go on, in order. (They were let
    /// go by their own group already: no group that is open now may hold them.)
    mutating func release<Wire: OutboxWire>(repliesTo client: String, to wire: Wire) {
        for reply in heldReplies.close(client) { passReleased(reply, wire) }
    }

    // MARK: Lanes (rule 3)

    /// Whether `call` is refused at once because its sender has `waitingCallsPerSender` replies
    /// waiting; when it is, the refusal waits in the sender's lane (its handler must not run).
    mutating func refuses(_ call: Message) -> Bool {
        guard usesLanes, !lanes.isEmpty, call.expectsReply else { return false }
        return refuses(serial: call.serial, from: call.sender)
    }

    /// `refuses(_:)` for the call with `serial` from `sender` (that expects a reply).
    mutating func refuses(serial: UInt32, from sender: String) -> Bool {
        guard usesLanes, lanes.refuses(sender, limit: limits.waitingCallsPerSender) else { return false }
        lanes.refuse(serial: serial, of: sender)
        return true
    }

    /// Hands waiting replies to `wire` in turn while its queue is under the lane limit (or all of
    /// them).
    private mutating func handLanes<Wire: OutboxWire>(all: Bool, _ wire: Wire) {
        let limit = laneHandLimit
        while all || wire.queuedBytes <= limit, let item = lanes.takeNext() {
            switch item {
            case .message(let message):
                wire.hand(message)
            case .refusal(let serial, let destination):
                wire.hand(
                    Message.refusal(
                        answering: serial, destination: destination,
                        MethodError(.limitsExceeded, refusalText(destination))))
            }
        }
    }

    private func refusalText(_ sender: String) -> String {
        "Too many calls from \(sender) are waiting for their replies (\(limits.waitingCallsPerSender)): "
            + "the replies are not being read; read them before sending more calls"
    }

    // MARK: Rounds

    /// After a round of dispatching: the waiting replies in turn as far as the queue is short
    /// (rule 3), then the held state signals if it is down to half the backlog limit (rule 4).
    mutating func handWaiting<Wire: OutboxWire>(to wire: Wire) {
        if !heldSignals.isEmpty,
            wire.queuedBytes <= (lanes.isEmpty ? limits.backlogLimit / 2 : laneHandLimit)
        {
            for message in heldSignals.takeAll() { wire.hand(message) }
        }
        if !lanes.isEmpty { handLanes(all: false, wire) }
    }

    /// Bytes queued up to which the lanes (and, while they wait, the held signals) are handed on.
    private var laneHandLimit: Int { wantsSmallSocketBuffer ? limits.floodLaneLimit : limits.laneLimit }

    /// Before the loop sleeps, once a round, from the bytes waiting to be written: whether signals
    /// are merged and replies wait in lanes until the next round, whether the loop stops reading the
    /// connection (`pausesReading`: past `readingPauseLimit` or the lanes' counts, until both are
    /// at half), and whether its socket's send buffer is small (`wantsSmallSocketBuffer`: while a
    /// sender is refused). Once a round bounds the queue to the limits plus one round's output.
    mutating func afterRound(queuedBytes queued: Int) {
        backlogged = queued > limits.backlogLimit
        usesLanes = queued > limits.lanesEngageLimit || !lanes.isEmpty
        wantsSmallSocketBuffer = lanes.refusalCount > 0
        if pausesReading {
            let drained =
                lanes.messageCount <= limits.laneMessageLimit / 2
                && lanes.refusalCount <= limits.laneRefusalLimit / 2
            if queued <= limits.readingPauseLimit / 2 && drained { pausesReading = false }
        } else if queued > limits.readingPauseLimit || lanes.messageCount > limits.laneMessageLimit
            || lanes.refusalCount > limits.laneRefusalLimit
        {
            pausesReading = true
        }
    }

    // MARK: Closing

    /// Every reply waiting, held for a client or in a lane, goes now (the last word before closing,
    /// when nothing more will be learned about anyone). Held state signals still wait for the bus,
    /// and an open group for its end.
    mutating func drainAll<Wire: OutboxWire>(to wire: Wire) {
        if !heldReplies.isEmpty {
            for reply in heldReplies.takeAll() { passReleased(reply, wire) }
        }
        if !lanes.isEmpty { handLanes(all: true, wire) }
    }

    /// Forgets every held signal and reply and every lane (the connection closed: nothing can go).
    mutating func discardWaiting() {
        heldSignals = HeldSignals()
        heldReplies = HeldReplies()
        lanes = ReplyLanes()
    }
}

extension Outgoing {
    var skipsGroup: Bool {
        if case .laterReply = self { return true }
        return false
    }
}
