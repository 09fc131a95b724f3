import DBusKit
import Glibc
import Synchronization

/// Reads what a client's process says of itself (`ClientDirectory.command`, from
/// /proc/<pid>/cmdline) on a thread of its own, never on the event loop: reading another
/// process's command line takes that process's memory lock, and a process stuck in a page fault
/// (a stalled FUSE or NFS mount) holds it for as long as it is stuck, so the read would block
/// every client's calls, SIGTERM included. The answer comes back on the loop through its waker
/// (`LoopHandle.execute`). A read that takes longer than `timeout` is answered with "" (the
/// client is known by its pid alone) and its late result dropped; while the thread is stuck on
/// it, further clients are answered "" at once rather than queued behind it. The thread starts
/// with the first read, serves the reads one at a time, and ends with the reader.
final class CommandReader {
    /// How long a read may take before its client is known without its command; also the longest
    /// a new client's replies wait for it (`ClientDirectory` holds them meanwhile).
    static let timeout = 0.5
    typealias Read = @Sendable (UInt32) -> String

    private let loop: EventLoop
    private let read: Read
    private var worker: Worker?
    private var waiting: [UInt64: (timer: TimerID, answer: (String) -> Void)] = [:]
    private var nextRequest: UInt64 = 0
    /// The request the thread has been on for longer than `timeout`, if any.
    private var stuckOn: UInt64?
    /// Whether the thread is on a read that took longer than `timeout`.
    var isStuck: Bool { stuckOn != nil }

    init(loop: EventLoop, read: @escaping Read = { ClientDirectory.command(pid: $0) }) {
        self.loop = loop
        self.read = read
    }

    deinit {
        for entry in waiting.values { loop.cancel(entry.timer) }
        worker?.finish()
    }

    /// Runs `answer` once, on the loop, with `pid`'s command ("" when it cannot be told in time, or,
    /// given the connection's `maker`, when it may be another process's).
    func command(
        of pid: UInt32, madeBy maker: ConnectionMaker? = nil, answer: @escaping (String) -> Void
    ) {
        guard stuckOn == nil else { return answer("") }
        nextRequest &+= 1
        let request = nextRequest
        let timer = loop.schedule(after: Self.timeout) { [unowned self] in
            stuckOn = request
            waiting.removeValue(forKey: request)?.answer("")
        }
        waiting[request] = (timer, answer)
        let worker = self.worker ?? Worker(read: read, handle: loop.handle, reader: WeakReader(self))
        self.worker = worker
        worker.submit(request, pid, maker)
    }

    /// The thread's answer to `request`, on the loop.
    fileprivate func finished(_ request: UInt64, _ command: String) {
        if stuckOn == request { stuckOn = nil }
        guard let entry = waiting.removeValue(forKey: request) else { return }  // answered "" already
        loop.cancel(entry.timer)
        entry.answer(command)
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
    typealias Request = (id: UInt64, pid: UInt32, maker: ConnectionMaker?)
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

    func submit(_ request: UInt64, _ pid: UInt32, _ maker: ConnectionMaker?) {
        requests.withLock { $0.queue.append((request, pid, maker)) }
        sem_post(ready)
    }

    func finish() {
        requests.withLock { $0.finished = true }
        sem_post(ready)
    }

    private func serve() {
        while true {
            while sem_wait(ready) != 0 {}  // EINTR
            let next = requests.withLock { state -> (finished: Bool, request: Request?) in
                (state.finished, state.finished || state.queue.isEmpty ? nil : state.queue.removeFirst())
            }
            if next.finished { return }
            guard let (request, pid, maker) = next.request else { continue }
            let command = maker.map { $0.command(of: pid, read: read) } ?? read(pid)
            let reader = self.reader
            handle.execute { _ in reader.reader?.finished(request, command) }
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
                return { pid in
                    if pid == stalled { while true { pause() } }  // the thread takes no signals: for ever
                    return ClientDirectory.command(pid: pid)
                }
            }
        #endif
        return { ClientDirectory.command(pid: $0) }
    }
}
