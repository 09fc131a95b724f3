/// Replies that wait, one lane per destination (`Outbox` rule 3), while the bus takes what this
/// connection writes more slowly than it delivers calls to it.
///
/// Why here, and not in what is read: dbus-daemon (1.14) walks its whole list of calls awaiting a
/// reply for every call it routes and for every reply it reads, so a flood of pipelined calls
/// makes it read our replies several times more slowly than it delivers the calls
/// (Benchmarks/PERFORMANCE-LOG.md, "The outbox's limits"). Reading is not what is slow; the replies
/// pile up, and libdbus's outgoing queue is one FIFO: another client's reply would wait behind every
/// reply to the flood. So replies are kept back per destination and handed to libdbus in turn
/// (round-robin), a little at a time: another client's reply is next in line, whatever one sender
/// has queued. A sender with too many replies waiting is refused at once with LimitsExceeded (what
/// dbus-daemon itself answers a sender past its limits); the refusal keeps only the call's serial
/// until it is its turn, and a pipelining sender's serials follow one another, so a run of them is
/// kept as its first serial and a count: a flood costs a few bytes per run, not a reply per call.
/// (Kept one by one, a crowd's serials grew arrays by doubling, and their freed copies, among what
/// lives on, stayed resident after the crowd left: Benchmarks/PERFORMANCE-LOG.md.)
struct ReplyLanes {
    /// What one destination waits for, in order: its replies, then its refusals. Once a lane refuses
    /// it refuses until it is empty, so no reply can come after a refusal made before its call.
    struct Lane {
        /// Consecutive serials refused: `first`, `first + 1`, ... `count` of them.
        struct Run {
            var first: UInt32
            var count: Int
        }

        var messages: [Message] = []
        var messagesTaken = 0
        var refusals: [Run] = []
        var runsTaken = 0
        /// How many of the oldest run's serials were taken.
        var takenInRun = 0
        var refusalCount = 0
        var count: Int { messages.count - messagesTaken + refusalCount }
        var isRefusing: Bool { refusalCount > 0 }

        mutating func refuse(_ serial: UInt32) {
            if let last = refusals.last, runsTaken < refusals.count,
                last.first &+ UInt32(truncatingIfNeeded: last.count) == serial
            {
                refusals[refusals.count - 1].count += 1
            } else {
                refusals.append(Run(first: serial, count: 1))
            }
            refusalCount += 1
        }

        mutating func takeRefusal() -> UInt32 {
            let run = refusals[runsTaken]
            let serial = run.first &+ UInt32(truncatingIfNeeded: takenInRun)
            takenInRun += 1
            if takenInRun == run.count {
                runsTaken += 1
                takenInRun = 0
            }
            refusalCount -= 1
            return serial
        }

        /// Drops what was taken once it is most of the lane: a lane that refuses for as long as a
        /// flood lasts is never empty, and must not keep every reply or run it ever held.
        mutating func compact() {
            if messagesTaken >= 64, messagesTaken * 2 >= messages.count {
                messages.removeFirst(messagesTaken)
                messagesTaken = 0
            }
            if runsTaken >= 64, runsTaken * 2 >= refusals.count {
                refusals.removeFirst(runsTaken)
                runsTaken = 0
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

    /// How many runs of refused serials `destination`'s lane keeps in memory, taken ones included
    /// (for tests).
    func storedRefusalRuns(for destination: String) -> Int { lanes[destination]?.refusals.count ?? 0 }

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
        lanes[sender, default: Lane()].refuse(serial)
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
            item = .refusal(serial: lane.takeRefusal(), destination: destination)
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
