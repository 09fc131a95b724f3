internal import CDBus
internal import SystemCalls
internal import CPOSIX
#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The two ends of a group of dispatched messages; see `EventLoop.groupCommit`.
public struct GroupCommit {
    public var begin: () -> Void
    public var end: () -> MethodError?

    public init(begin: @escaping () -> Void, end: @escaping () -> MethodError?) {
        self.begin = begin
        self.end = end
    }
}

/// Identifies a one-shot timer for `EventLoop.cancel(_:)`.
public struct TimerID: Hashable, Sendable {
    let id: UInt64
}

/// Where an `EventLoop` reads the time.
public enum LoopClock: Sendable {
    /// CLOCK_MONOTONIC: the loop sleeps in poll(2) until the nearest deadline.
    case monotonic
    /// Time that moves only when a test calls `EventLoop.advanceTime(by:)` (swift-nio's
    /// `EmbeddedEventLoop` is the model): timers and libdbus timeouts fire exactly at their
    /// deadlines, whatever the machine's load.
    case manual(start: Double = 0)
}

/// Identifies a file-descriptor watch for `EventLoop.unwatch(_:)`.
public struct FileWatchID: Hashable, Sendable {
    let id: UInt64
}

/// A single-threaded poll(2) loop serving any number of connections, timers, signals and fds.
///
/// It never wakes up on its own: poll sleeps until an fd is ready or the nearest deadline (a
/// timer or a libdbus timeout) passes, and blocks indefinitely when there is none. Everything
/// except `handle` must be used on the thread that calls `run()`.
public final class EventLoop {
    private let waker = LoopWaker()
    /// Shared with the connection bindings, whose libdbus timeouts run on the same clock.
    private let time: TimeSource
    private var bindings: [ConnectionBinding] = []
    private var timers: [TimerID: (deadline: Double, action: () -> Void)] = [:]
    /// The nearest timer's deadline (infinity: none is scheduled). Kept so that a round with a timer
    /// pending (the history's write waits 0.1 s after a change: most rounds of a run of calls)
    /// compares one number instead of walking the table twice; found again only when the nearest
    /// one fires or is cancelled.
    private var earliestTimer = Double.infinity
    private var fileWatches: [FileWatchID: (fd: Int32, handler: () -> Void)] = [:]
    private var signalHandlers: [Int32: () -> Void] = [:]
    private var nextID: UInt64 = 1
    /// How many times poll(2) has returned: one per round of the loop. An idle loop's count stands
    /// still (tests check it instead of timing CPU use).
    @_spi(Testing) public private(set) var wakeUps = 0
    /// Reused by `iterate` from round to round.
    private var pollWatches: [WatchEntry] = []
    private var pollFDs: [pollfd] = []
    /// Whether a connection was paused since memory was last given back (see `iterate`).
    private var backlogSeen = false
    /// Since when a client has been waiting for a reply held for it (nil: none is).
    private var heldReplySince: Double?

    /// How long the loop polls without sleeping while a client waits for a reply held for it
    /// (`Outbox` rule 2, as a new client's call waits for what the daemon learns of its process).
    /// What lets it go (the bus's answer, another thread's `LoopHandle.execute`) is due within a
    /// few tens of microseconds, and a loop asleep in poll(2) takes about as long again to wake
    /// for it. Bounded, and counted from when the first such reply was kept: a hold that lasts (a
    /// bus or a process in trouble) costs this much CPU once, then the loop sleeps as usual.
    public static let heldReplyPollSeconds = 0.000_3

    /// Group commit. When set, every message already queued on the loop's connections is
    /// dispatched in order with the replies and signals it causes held back; then `end` runs once
    /// (e.g. one durable write for all of the group's changes) and the held messages go out, those
    /// of connections marked `releasesGroupFirst` first. If `end` returns an error, the group's
    /// changes were undone: held signals are dropped and every held method return is sent as that
    /// error instead. So nothing is answered before it is durable,
    /// and a burst of calls costs one write. Messages sent outside dispatching (timers, signals) are not held.
    public var groupCommit: GroupCommit?

    public init(clock: LoopClock = .monotonic) {
        switch clock {
        case .monotonic: time = TimeSource(manual: nil)
        case .manual(let start): time = TimeSource(manual: start)
        }
    }

    deinit {
        for binding in bindings { binding.detach() }
        if signalPipeFD.load(ordering: .relaxed) == waker.writeFD {
            for signo in signalHandlers.keys { restoreDefaultSignal(signo) }
            signalPipeFD.store(-1, ordering: .relaxed)
        }
    }

    /// The thread-safe handle: `stop()` and `execute(_:)` from any thread.
    public var handle: LoopHandle { LoopHandle(waker: waker) }

    /// Makes `run()` return after the current iteration (from the loop's own thread; use `handle` elsewhere).
    public func stop() { handle.stop() }

    // MARK: Connections

    /// Serves `connection` from this loop: its fds, its libdbus timeouts and its dispatching.
    /// When the bus goes away the connection's `onDisconnect` runs and it is removed automatically.
    public func add(_ connection: Connection) {
        guard !bindings.contains(where: { $0.connection === connection }) else { return }
        let binding = ConnectionBinding(connection, time: time)
        bindings.append(binding)
        binding.attach()
    }

    /// Stops serving `connection` (it stays open).
    public func remove(_ connection: Connection) {
        guard let index = bindings.firstIndex(where: { $0.connection === connection }) else { return }
        bindings.remove(at: index).detach()
    }

    /// The connections currently served.
    public var connections: [Connection] { bindings.map(\.connection) }

    // MARK: Timers, fds, signals

    /// Runs `action` once on the loop thread after `seconds`.
    @discardableResult
    public func schedule(after seconds: Double, _ action: @escaping () -> Void) -> TimerID {
        let id = TimerID(id: makeID())
        let deadline = time.now() + max(0, seconds)
        timers[id] = (deadline, action)
        earliestTimer = min(earliestTimer, deadline)
        return id
    }

    /// Cancels a timer that has not fired yet; anything else is ignored.
    public func cancel(_ timer: TimerID) {
        guard let cancelled = timers.removeValue(forKey: timer), cancelled.deadline <= earliestTimer
        else { return }
        earliestTimer = nearestTimerDeadline()
    }

    private func nearestTimerDeadline() -> Double {
        timers.values.reduce(Double.infinity) { min($0, $1.deadline) }
    }

    /// Calls `handler` whenever `fd` is readable, or has hung up or failed. The handler must read
    /// (or unwatch) the fd, otherwise poll keeps reporting it. An fd that becomes invalid is unwatched.
    @discardableResult
    public func watchFileDescriptor(_ fd: Int32, handler: @escaping () -> Void) -> FileWatchID {
        let id = FileWatchID(id: makeID())
        fileWatches[id] = (fd, handler)
        return id
    }

    public func unwatch(_ watch: FileWatchID) {
        fileWatches[watch] = nil
    }

    /// Runs `handler` on the loop thread when the process receives `signo` (e.g. SIGTERM → `stop()`).
    ///
    /// A sigaction handler writes the signal number into the loop's self-pipe, so the handler
    /// itself runs outside signal context. Signals are process-wide: the last loop to call this owns them.
    public func onSignal(_ signo: Int32, _ handler: @escaping () -> Void) {
        signalHandlers[signo] = handler
        signalPipeFD.store(waker.writeFD, ordering: .relaxed)
        installSignalTrampoline(signo)
    }

    private func makeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: Running

    /// Runs until `stop()` (or `handle.stop()`) is called.
    ///
    /// Clears this thread's signal mask first: threads spawned from Swift concurrency workers
    /// can inherit a mask with SIGTERM blocked (swift-corelibs-foundation #4772), which would
    /// silently disable `onSignal`.
    public func run() {
        var empty = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, nil)
        while !waker.stopRequested.exchange(false, ordering: .sequentiallyConsistent) {
            iterate()
        }
    }

    /// Runs until `stop()` is called or `seconds` have passed: for tests (with the monotonic clock).
    @_spi(Testing) public func run(seconds: Double) {
        let timer = schedule(after: seconds) { [unowned self] in self.stop() }
        run()
        cancel(timer)
    }

    // MARK: Manual time

    /// Now, in seconds on the loop's clock.
    public var now: Double { time.now() }

    /// Moves a `.manual` clock forward by `seconds`, one deadline at a time: every timer and
    /// libdbus timeout that falls due runs with the clock at its own deadline, in deadline order,
    /// together with whatever the connections have ready meanwhile (nothing here ever sleeps).
    /// With no arguments (0 s) it is one round that handles only what is ready now.
    public func advanceTime(by seconds: Double = 0) {
        guard let start = time.manual else {
            preconditionFailure("advanceTime(by:) needs an EventLoop(clock: .manual)")
        }
        let target = start + max(0, seconds)
        while let next = nearestDeadline(), next <= target {
            time.manual = max(next, time.manual ?? next)
            iterate(pollTimeout: 0)
        }
        time.manual = target
        iterate(pollTimeout: 0)
    }

    /// One round: dispatch what is queued, sleep in poll, then handle what woke us.
    private func iterate(pollTimeout: Int32? = nil) {
        dispatchAndReap()
        // (`advanceTime` always finishes its round, so that the timers it is moving past do fire.)
        if pollTimeout == nil && waker.stopRequested.load(ordering: .sequentiallyConsistent) { return }

        // Snapshot what we poll, so callbacks that add or remove entries cannot confuse the indices.
        // The buffers are kept between rounds: a round per message must not allocate.
        var watches = pollWatches
        pollWatches = []
        watches.removeAll(keepingCapacity: true)
        // A paused connection (see `ConnectionBinding.paused`) is not read: only written.
        var busy = false
        var backlogged = false
        var holding = false
        for binding in bindings {
            binding.connection.afterRound()
            let paused = binding.paused
            backlogged = backlogged || binding.connection.outbox.isBackedUp
            holding = holding || binding.connection.outbox.keepsAHeldReply
            busy = busy || (binding.moreQueued && !paused)
            for watch in binding.watches
            where watch.isValid && watch.enabled && !watch.hungUp && !(paused && watch.isReadWatch) {
                watches.append(watch)
            }
        }
        if backlogged {
            backlogSeen = true
        } else if backlogSeen {
            // A backlog left the heap with free pages in the middle that free() alone keeps.
            backlogSeen = false
            returnFreeMemory()
        }
        let files = fileWatches.isEmpty ? [] : Array(fileWatches)
        var fds = pollFDs
        pollFDs = []
        fds.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: waker.readFD, events: Int16(POLLIN), revents: 0))
        for watch in watches { fds.append(pollfd(fd: watch.fd, events: watch.pollEvents, revents: 0)) }
        for file in files { fds.append(pollfd(fd: file.value.fd, events: Int16(POLLIN), revents: 0)) }
        defer {
            pollWatches = watches
            pollFDs = fds
        }

        let spinning = !busy && pollTimeout == nil && pollsWithoutSleeping(holding)
        let ready = poll(
            &fds, nfds_t(fds.count), busy || spinning ? 0 : pollTimeout ?? pollTimeoutMilliseconds())
        wakeUps &+= 1
        // Another thread may be about to answer, and may share this CPU.
        if spinning && ready == 0 { sched_yield() }
        if ready < 0 && cposix_errno() != EINTR {
            writeDiagnostic("DBusKit: poll failed with errno \(cposix_errno())")
        }
        if ready > 0 {
            if fds[0].revents != 0 { handleWakeUp() }
            for (offset, watch) in watches.enumerated()
            where fds[offset + 1].revents != 0 && watch.isValid {
                watch.handle(fds[offset + 1].revents)
            }
            for (offset, file) in files.enumerated() {
                let revents = fds[offset + 1 + watches.count].revents
                guard revents != 0, fileWatches[file.key] != nil else { continue }
                if revents & Int16(POLLNVAL) != 0 {
                    fileWatches[file.key] = nil
                } else {
                    file.value.handler()
                }
            }
        }
        fireDueTimeouts()
        fireDueTimers()
        dispatchAndReap()
    }

    /// Whether this round polls without sleeping because a client waits for a held reply
    /// (`heldReplyPollSeconds`). Never with manual time, which does not pass while the loop polls.
    private func pollsWithoutSleeping(_ holding: Bool) -> Bool {
        guard holding, time.manual == nil else {
            heldReplySince = nil
            return false
        }
        let now = time.now()
        let since = heldReplySince ?? now
        heldReplySince = since
        return now - since < Self.heldReplyPollSeconds
    }

    /// The poll timeout: until the nearest timer or libdbus timeout, or -1 (sleep until an fd is ready).
    /// Manual time never passes while poll sleeps, so then only a deadline already due counts.
    private func pollTimeoutMilliseconds() -> Int32 {
        guard let nearest = nearestDeadline() else { return -1 }
        let milliseconds = ((nearest - time.now()) * 1000).rounded(.up)
        if time.manual != nil { return milliseconds <= 0 ? 0 : -1 }
        return Int32(min(max(milliseconds, 0), Double(Int32.max)))
    }

    /// The nearest deadline of a timer or an enabled libdbus timeout.
    private func nearestDeadline() -> Double? {
        var nearest: Double?
        for binding in bindings {
            for timeout in binding.timeouts where timeout.isValid && timeout.enabled {
                nearest = min(nearest ?? timeout.deadline, timeout.deadline)
            }
        }
        if earliestTimer < .infinity { nearest = min(nearest ?? earliestTimer, earliestTimer) }
        return nearest
    }

    private func handleWakeUp() {
        let signals = waker.drain()
        let jobs = waker.jobs.withLock { jobs in
            defer { jobs = [] }
            return jobs
        }
        for job in jobs { job(self) }
        for signo in signals { signalHandlers[signo]?() }
    }

    private func fireDueTimeouts() {
        guard bindings.contains(where: { !$0.timeouts.isEmpty }) else { return }
        let now = time.now()
        for timeout in bindings.flatMap(\.timeouts)
        where timeout.isValid && timeout.enabled && timeout.deadline <= now {
            timeout.rearm(now: now)
            _ = dbus_timeout_handle(timeout.raw)  // FALSE = OOM; libdbus retries at the next interval
        }
    }

    /// Fires the timers due now, in the order of their deadlines; one that an action schedules waits
    /// for the next round, one that an action cancels does not fire. The earliest is looked up in
    /// place each time (a few timers at most), no table or list made: the history's fires after
    /// every run of changes.
    private func fireDueTimers() {
        let now = time.now()
        guard earliestTimer <= now else { return }
        let scheduled = nextID
        while true {
            var earliest: (id: TimerID, deadline: Double)?
            for (id, timer) in timers where timer.deadline <= now && id.id < scheduled {
                if earliest.map({ timer.deadline < $0.deadline }) ?? true {
                    earliest = (id, timer.deadline)
                }
            }
            guard let earliest, let timer = timers.removeValue(forKey: earliest.id) else { break }
            timer.action()
        }
        earliestTimer = nearestTimerDeadline()
    }

    /// Dispatches every connection until nothing remains, then drops those whose bus went away
    /// (after their `onDisconnect` ran), so a dead socket is never polled again.
    private func dispatchAndReap() {
        if let group = groupCommit {
            // Every queued message is dispatched with its replies and signals held, the group's
            // changes are made durable once, and only then does anything go out.
            for binding in bindings { binding.connection.outbox.beginGroup() }
            group.begin()
            for binding in bindings { binding.dispatchAll() }
            let undone = group.end()
            for binding in bindings where binding.connection.releasesGroupFirst {
                binding.connection.endGroup(undone: undone)
            }
            for binding in bindings where !binding.connection.releasesGroupFirst {
                binding.connection.endGroup(undone: undone)
            }
        } else {
            for binding in bindings { binding.dispatchAll() }
        }
        for binding in bindings { binding.connection.handWaiting() }
        for binding in bindings where dbus_connection_get_is_connected(binding.connection.raw) == 0 {
            binding.connection.noteDisconnected()
            remove(binding.connection)
        }
    }
}

/// An event loop's clock, shared with its connection bindings: the monotonic clock, or manual time
/// (`manual` not nil) that only `EventLoop.advanceTime(by:)` moves. In production the cost is one
/// nil check per reading.
final class TimeSource {
    var manual: Double?

    init(manual: Double?) { self.manual = manual }

    func now() -> Double { manual ?? monotonicNow() }
}
