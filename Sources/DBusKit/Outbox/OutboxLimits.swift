/// The numbers that bound what waits in a connection's `Outbox`, in one value whose invariants are
/// checked when it is made (as swift-nio's `WriteBufferWaterMark`). Byte figures are of libdbus's
/// outgoing queue, as the event loop reads it once a round. Why each one is what it is, and what it
/// was measured against, is in Benchmarks/PERFORMANCE-LOG.md (the fault and flood runs).
struct OutboxLimits {
    /// Bytes queued above which state signals are held and merged (rule 4); the held ones go out
    /// once the queue is down to half of this.
    let backlogLimit: Int

    /// Bytes queued above which the event loop stops reading from the connection and dispatching
    /// what it has read, until the bus has taken all but half of them: backpressure, so that a
    /// client pipelining calls without reading their replies (or a bus that stops reading) cannot
    /// make the replies pile up here. The client's calls then wait in the bus, which bounds them by
    /// its own limits.
    let readingPauseLimit: Int

    /// Bytes queued above which replies start waiting in their lanes (rule 3), until the lanes are
    /// empty: a backlog, not a busy moment (a group of pipelined calls makes its replies and signals
    /// in one go).
    let lanesEngageLimit: Int

    /// Bytes queued up to which waiting replies are handed to libdbus: small, so that a reply given
    /// its turn is soon on the socket; `floodLaneLimit` while a sender is refused (a flood: the bus
    /// then takes replies slowly). Small limits and a small socket buffer also mean more writes,
    /// which cost throughput when they applied to every backlog rather than to a flood alone.
    let laneLimit: Int
    let floodLaneLimit: Int

    /// Replies (and refusals) waiting for one destination at which its further calls are refused
    /// with LimitsExceeded until its lane is empty: above what a client waiting for its answers has
    /// in flight (lanes hold replies only in a backlog, past `lanesEngageLimit`). Small, because a
    /// crowd refused sooner lets the bus clear its calls sooner, and what waits is heap that a crowd
    /// would leave fragmented.
    let waitingCallsPerSender: Int

    /// Replies waiting in all lanes above which the connection stops reading (as past
    /// `readingPauseLimit`): many senders each under their bound must not grow the process either.
    /// Counted, not measured (libdbus tells a message's size only once it is queued), so it is
    /// chosen against the largest reply the connection sends (an Introspect).
    let laneMessageLimit: Int
    /// Refusals waiting in all lanes (a serial each) above which the connection stops reading.
    let laneRefusalLimit: Int

    /// Replies held for one client (rule 2) past which its hold is given up and they all go on, in
    /// order: a client pipelining calls faster than the bus answers must not make this grow.
    let maximumHeldPerClient: Int

    /// Bytes asked of the kernel for the connection's socket send buffer while a sender is refused
    /// (the kernel doubles the figure). Its default is over a second of replies when a flooded bus
    /// takes them slowly: a reply given its turn would still wait behind all of them.
    let smallSocketBuffer: Int32

    /// Messages of one connection dispatched per round at most: the replies a group commit holds
    /// wait in memory until the round ends, and the other connections (the other bus) get their
    /// turn in between however much one of them has queued.
    let messagesPerRound: Int

    init(
        backlogLimit: Int, readingPauseLimit: Int, lanesEngageLimit: Int, laneLimit: Int,
        floodLaneLimit: Int,
        waitingCallsPerSender: Int, laneMessageLimit: Int, laneRefusalLimit: Int,
        maximumHeldPerClient: Int,
        smallSocketBuffer: Int32, messagesPerRound: Int
    ) {
        precondition(
            backlogLimit > 0 && readingPauseLimit > backlogLimit,
            "signals are merged before reading stops")
        precondition(
            floodLaneLimit > 0 && floodLaneLimit <= laneLimit && laneLimit <= lanesEngageLimit,
            "the lanes let replies go only below where they start to hold them")
        precondition(
            waitingCallsPerSender > 0 && waitingCallsPerSender <= laneMessageLimit
                && laneRefusalLimit > 0,
            "one sender is refused before all the lanes together stop reading")
        precondition(
            maximumHeldPerClient > 0 && smallSocketBuffer > 0 && messagesPerRound > 0,
            "limits are positive")
        self.backlogLimit = backlogLimit
        self.readingPauseLimit = readingPauseLimit
        self.lanesEngageLimit = lanesEngageLimit
        self.laneLimit = laneLimit
        self.floodLaneLimit = floodLaneLimit
        self.waitingCallsPerSender = waitingCallsPerSender
        self.laneMessageLimit = laneMessageLimit
        self.laneRefusalLimit = laneRefusalLimit
        self.maximumHeldPerClient = maximumHeldPerClient
        self.smallSocketBuffer = smallSocketBuffer
        self.messagesPerRound = messagesPerRound
    }

    /// What every connection uses.
    static let standard = OutboxLimits(
        backlogLimit: 32 * 1024, readingPauseLimit: 128 * 1024,
        lanesEngageLimit: 32 * 1024, laneLimit: 8 * 1024, floodLaneLimit: 2 * 1024,
        waitingCallsPerSender: 16, laneMessageLimit: 128, laneRefusalLimit: 1 << 18,
        maximumHeldPerClient: 64, smallSocketBuffer: 4 * 1024, messagesPerRound: 256)
}
