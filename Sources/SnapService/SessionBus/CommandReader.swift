import DBusKit
import Glibc
import Synchronization
import SystemCalls

/// Reads what a client's process says of itself (`ClientDirectory.command`, from
/// /proc/<pid>/cmdline) on a thread of its own, never on the event loop: reading another
/// process's command line takes that process's memory lock, and a process stuck in a page fault
/// (a stalled FUSE or NFS mount) holds it for as long as it is stuck, so the read would block
/// every client's calls, SIGTERM included. The answer comes back on the loop through its waker
/// (`LoopHandle.execute`). A request that takes longer than `timeout` is answered without the
/// command (the client is known by its pid alone) and its late result dropped; while the thread
/// is stuck on it, further requests are answered so at once rather than queued behind it. The
/// thread starts with the first request (or expectation: `expectRequest`), serves them one at a
/// time, and ends with the reader.
final class CommandReader {
    /// How long a request may take before its client is known without its command; also the
    /// longest a new client's replies wait for it (`ClientDirectory` holds them meanwhile).
    static let timeout = 0.5
    /// How long the thread waits awake for a request said to be due (`expectRequest`): about as
    /// long as the bus may take to answer a question while a client is connecting.
    static let awakeAheadSeconds = 0.000_3
    /// The most of a CPU the thread spends waiting awake: after a wait that took some CPU time, it
    /// sleeps at least three times as long before it waits awake again, whatever a crowd of
    /// clients connecting at once may ask.
    static let awakeShare = 0.25
    /// Reads the command of the process whose /proc folder is open (`ClientDirectory.command(in:)`).
    typealias Read = @Sendable (ProcessFolder) -> String
    /// What the thread found: the process's pid (0: not known) and its command ("": not known).
    typealias Answer = (pid: UInt32, command: String)

    /// One request to the thread.
    fileprivate enum Job: Sendable {
        /// The command of `pid`, no questions asked (a test's reader).
        case command(pid: UInt32)
        /// The command of the process the bus named, checked against what the bus said of it.
        case check(ConnectionMaker)
    }

    private let loop: EventLoop
    private let read: Read
    private var worker: Worker?
    private var waiting: [UInt64: (timer: TimerID, answer: (Answer) -> Void)] = [:]
    private var nextRequest: UInt64 = 0
    /// The request the thread has been on for longer than `timeout`, if any.
    private var stuckOn: UInt64?
    /// Whether the thread is on a request that took longer than `timeout`.
    var isStuck: Bool { stuckOn != nil }

    /// Whether the thread waits awake for requests said to be due (`expectRequest`): only on a
    /// machine with more than one CPU. On one, the bus and the client it waits for would wait for
    /// it instead.
    private let waitsAwake: Bool

    init(
        loop: EventLoop, waitsAwake: Bool = CommandReader.onlineCPUs() > 1,
        read: @escaping Read = { ClientDirectory.command(in: $0) }
    ) {
        self.loop = loop
        self.waitsAwake = waitsAwake
        self.read = read
    }

    /// The machine's CPUs that are online (1 when it cannot tell).
    static func onlineCPUs() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    deinit {
        for entry in waiting.values { loop.cancel(entry.timer) }
        worker?.finish()
    }

    /// Runs `answer` once, on the loop, with `pid`'s command ("" when it cannot be told in time).
    func command(of pid: UInt32, answer: @escaping (String) -> Void) {
        submit(.command(pid: pid)) { answer($0.command) }
    }

    /// Runs `answer` once, on the loop, with the pid of the process `maker` describes as this
    /// daemon counts it (0 when it cannot be told in time) and its command ("" when it cannot be
    /// told in time, or may be another process's).
    func command(madeBy maker: ConnectionMaker, answer: @escaping (Answer) -> Void) {
        submit(.check(maker), answer)
    }

    /// Says a request is due soon (the bus has been asked which process a client is): the thread
    /// wakes now and waits awake for it, at most `awakeAheadSeconds` (and `awakeShare` of a CPU),
    /// so that the request, when it comes, finds it running. Waking a thread on an idle CPU is
    /// slow on a virtual machine (Benchmarks/PERFORMANCE-LOG.md); this way it happens while the
    /// bus answers, not after it.
    func expectRequest() {
        guard waitsAwake, stuckOn == nil else { return }
        thread.expect(until: monotonicNow() + Self.awakeAheadSeconds)
    }

    /// The CPU time the thread has spent waiting awake for requests said to be due, in all, a wait
    /// going on included (for tests).
    var secondsAwakeAhead: Double {
        guard let worker else { return 0 }
        let (total, since, clock) = worker.awake.withLock { ($0.total, $0.since, $0.clock) }
        guard let since, let clock else { return total }
        return total + cpuSeconds(on: clock) - since
    }

    /// The thread, started with the first request or expectation.
    private var thread: Worker {
        if let worker { return worker }
        let started = Worker(read: read, handle: loop.handle, reader: WeakReader(self))
        worker = started
        return started
    }

    private func submit(_ job: Job, _ answer: @escaping (Answer) -> Void) {
        guard stuckOn == nil else { return answer((0, "")) }
        nextRequest &+= 1
        let request = nextRequest
        let timer = loop.schedule(after: Self.timeout) { [unowned self] in
            stuckOn = request
            waiting.removeValue(forKey: request)?.answer((self.worker?.pid(on: request) ?? 0, ""))
        }
        waiting[request] = (timer, answer)
        thread.submit(request, job)
    }

    /// The thread's answer to `request`, on the loop.
    fileprivate func finished(_ request: UInt64, _ found: Answer) {
        if stuckOn == request { stuckOn = nil }
        guard let entry = waiting.removeValue(forKey: request) else { return }  // answered already
        loop.cancel(entry.timer)
        entry.answer(found)
    }
}

/// The reader as the thread's answers reach it: they run on the loop's thread, the only one that
/// touches it (`LoopHandle.execute`), so the reference crosses threads without being used on them.
private final class WeakReader: @unchecked Sendable {
    weak var reader: CommandReader?
    init(_ reader: CommandReader) { self.reader = reader }
}

/// The thread: takes the requests in order, reads, hands each answer to the loop.
private final class Worker: Sendable {
    let read: CommandReader.Read
    let handle: LoopHandle
    let reader: WeakReader
    let requests = Mutex<(queue: [Request], finished: Bool)>(([], false))
    typealias Request = (id: UInt64, job: CommandReader.Job)
    /// The request the thread is on and the pid it has found for it so far (0: none yet): a
    /// request that times out meanwhile still names its client by that pid.
    let progress = Mutex<(request: UInt64, pid: UInt32)>((0, 0))
    /// Until when the thread waits awake for a request (`expect(until:)`).
    let awakeUntil = Mutex<Double>(0)
    /// The CPU time of the waits awake that ended, the thread's CPU time when the one going on
    /// began, if one is, and the thread's CPU-time clock (`CommandReader.secondsAwakeAhead`).
    let awake = Mutex<(total: Double, since: Double?, clock: clockid_t?)>((0, nil, nil))
    /// Counts the requests (and the finish) the thread has not taken yet.
    nonisolated(unsafe) let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init(read: @escaping CommandReader.Read, handle: LoopHandle, reader: WeakReader) {
        self.read = read
        self.handle = handle
        self.reader = reader
        sem_init(ready, 0, 0)
        var thread = pthread_t()
        let retained = Unmanaged.passRetained(self).toOpaque()
        let made = pthread_create(
            &thread, nil,
            { raw in
                let worker = Unmanaged<Worker>.fromOpaque(raw!).takeRetainedValue()
                // Signals are the loop's: this thread takes none of them.
                var all = sigset_t()
                sigfillset(&all)
                pthread_sigmask(SIG_BLOCK, &all, nil)
                worker.serve()
                return nil
            }, retained)
        if made == 0 {
            pthread_detach(thread)
        } else {
            // No thread (out of threads or memory): every request stays unanswered and times out.
            Unmanaged<Worker>.fromOpaque(retained).release()
        }
    }

    deinit {
        sem_destroy(ready)
        ready.deallocate()
    }

    func submit(_ request: UInt64, _ job: CommandReader.Job) {
        requests.withLock { $0.queue.append((request, job)) }
        sem_post(ready)
    }

    /// Wakes the thread to wait awake for a request until `deadline` (`CommandReader.expectRequest`).
    func expect(until deadline: Double) {
        awakeUntil.withLock { $0 = deadline }
        sem_post(ready)
    }

    func finish() {
        requests.withLock { $0.finished = true }
        sem_post(ready)
    }

    /// On the thread: the pid found for the request it is on.
    private func note(_ pid: UInt32) {
        progress.withLock { $0.pid = pid }
    }

    /// The pid the thread has found for `request` so far (0: none, or not on it).
    func pid(on request: UInt64) -> UInt32 {
        progress.withLock { $0.request == request ? $0.pid : 0 }
    }

    private func takeNext() -> (finished: Bool, request: Request?) {
        requests.withLock { state in
            (state.finished, state.finished || state.queue.isEmpty ? nil : state.queue.removeFirst())
        }
    }

    /// Woken ahead of a request (`expect(until:)`): waits awake for it, yielding the CPU between
    /// looks, until it comes or the deadline set before this wait began passes; not at all while
    /// the thread has not slept long enough since it last waited (`CommandReader.awakeShare`).
    private func waitAwake(restingUntil rest: inout Double) -> (finished: Bool, request: Request?) {
        let start = monotonicNow()
        let deadline = awakeUntil.withLock { $0 }
        guard start < deadline, start >= rest else { return (false, nil) }
        let cpuAtStart = cpuSeconds()
        awake.withLock { $0.since = cpuAtStart }
        var next: (finished: Bool, request: Request?)
        repeat {
            sched_yield()
            next = takeNext()
        } while !next.finished && next.request == nil && monotonicNow() < deadline
        // Counted in CPU time: while it yields, others run on its CPU, and that costs it nothing.
        let spent = cpuSeconds() - cpuAtStart
        awake.withLock {
            $0.total += spent
            $0.since = nil
        }
        rest = monotonicNow() + spent * (1 / CommandReader.awakeShare - 1)
        return next
    }

    private func serve() {
        var clock = clockid_t()
        if pthread_getcpuclockid(pthread_self(), &clock) == 0 { awake.withLock { $0.clock = clock } }
        var rest = 0.0
        while true {
            while sem_wait(ready) != 0 {}  // EINTR
            var next = takeNext()
            if !next.finished && next.request == nil { next = waitAwake(restingUntil: &rest) }
            if next.finished { return }
            guard let (request, job) = next.request else { continue }
            progress.withLock { $0 = (request, 0) }
            let found: CommandReader.Answer
            switch job {
            case .command(let pid): found = (pid, read(ProcessFolder(pid: pid, descriptor: -1)))
            case .check(let maker): found = maker.identify(read: read, noting: note)
            }
            let reader = self.reader
            handle.execute { _ in reader.reader?.finished(request, found) }
        }
    }
}

extension CommandReader {
    /// The read the daemon uses, `ClientDirectory.command`. In a debug build the environment's
    /// `SNAPSIZE_TEST_STALLED_PID` names a process whose read never ends, as reading a process
    /// stuck in a page fault may not, for the test that the daemon serves on; the shipped
    /// (release) daemon reads no such variable.
    static func read(environment: [String: String]) -> Read {
        #if DEBUG
            if let text = environment["SNAPSIZE_TEST_STALLED_PID"], let stalled = UInt32(text) {
                return { process in
                    // The thread takes no signals: for ever.
                    if process.pid == stalled { while true { pause() } }
                    return ClientDirectory.command(in: process)
                }
            }
        #endif
        return { ClientDirectory.command(in: $0) }
    }
}
