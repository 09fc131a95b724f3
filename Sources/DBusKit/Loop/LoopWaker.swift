#if canImport(Glibc)
    @preconcurrency import Glibc
#endif
import Synchronization
internal import CPOSIX

/// The self-pipe of an `EventLoop`: other threads and signal handlers wake the loop by writing one
/// byte to it, which means "look at the job queue, the stop flag and the pending signals". A byte
/// lost to a full pipe loses nothing: the full pipe already wakes the loop, and what it is woken for
/// is kept in flags, never in the bytes.
///
/// Owns the pipe, so the write end stays valid for as long as any `LoopHandle` exists.
final class LoopWaker: Sendable {
    let readFD: Int32
    let writeFD: Int32
    let stopRequested = Atomic<Bool>(false)
    let jobs = Mutex<[@Sendable (EventLoop) -> Void]>([])

    init() {
        var fds: [Int32] = [-1, -1]
        // pipe fails only when the process is out of file descriptors: there is no loop without it.
        guard pipe(&fds) == 0 else {
            fatalError("EventLoop: pipe failed with errno \(cposix_errno())")
        }
        for fd in fds {
            _ = cposix_fcntl(fd, F_SETFL, cposix_fcntl(fd, F_GETFL, 0) | O_NONBLOCK)  // a full pipe must not block a signal handler
            _ = cposix_fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Async-signal-safe: a single write(2). A full pipe already guarantees a wake-up.
    func wake() {
        var byte: UInt8 = 0
        _ = write(writeFD, &byte, 1)
    }

    /// Reads all pending bytes, then takes the signals that arrived (each once, however often it
    /// came: a flood of SIGHUP is one reload), in ascending order of their numbers. A signal that
    /// arrives after the flags are taken writes a byte again, so it is seen on the next round.
    func drain() -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
        let pending = pendingSignals.exchange(0, ordering: .sequentiallyConsistent)
        guard pending != 0 else { return [] }
        return (1...64).filter { pending & (UInt64(1) << UInt64($0 - 1)) != 0 }.map(Int32.init)
    }
}

/// The thread-safe face of an `EventLoop`: stop it or run a job on its thread from anywhere.
public struct LoopHandle: Sendable {
    let waker: LoopWaker

    /// Makes `run()` return after the current iteration.
    public func stop() {
        waker.stopRequested.store(true, ordering: .sequentiallyConsistent)
        waker.wake()
    }

    /// Runs `job` on the loop's thread during its next iteration.
    public func execute(_ job: @escaping @Sendable (EventLoop) -> Void) {
        waker.jobs.withLock { $0.append(job) }
        waker.wake()
    }
}

// MARK: - POSIX signals

/// The write end of the pipe of the loop that handles POSIX signals (-1: none). Signals are
/// process-wide, so one loop at a time owns them; an atomic keeps the handler async-signal-safe.
let signalPipeFD = Atomic<Int32>(-1)

/// The signals that arrived and were not handled yet: bit `signo - 1` (signals are 1...64 on Linux).
/// A flag per signal, not a byte per signal in the pipe: a flood of one signal (SIGHUP) can fill a
/// pipe, and then a byte for SIGTERM would be dropped and the termination request lost.
let pendingSignals = Atomic<UInt64>(0)

/// The one sigaction trampoline: marks the signal pending, then wakes the loop through its
/// self-pipe (an atomic or and a write(2): both async-signal-safe).
let signalTrampoline: @convention(c) (Int32) -> Void = { signo in
    let savedErrno = cposix_errno()
    if signo >= 1 && signo <= 64 {
        pendingSignals.bitwiseOr(UInt64(1) << UInt64(signo - 1), ordering: .sequentiallyConsistent)
    }
    var byte: UInt8 = 0
    let fd = signalPipeFD.load(ordering: .relaxed)
    if fd >= 0 { _ = write(fd, &byte, 1) }
    cposix_set_errno(savedErrno)
}

/// Installs `signalTrampoline` for `signo` (SA_RESTART, nothing blocked during the handler).
func installSignalTrampoline(_ signo: Int32) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = signalTrampoline
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(signo, &action, nil)
}

/// Restores the default disposition of `signo`.
func restoreDefaultSignal(_ signo: Int32) {
    var action = sigaction()
    cposix_set_default_handler(&action)
    sigemptyset(&action.sa_mask)
    sigaction(signo, &action, nil)
}
