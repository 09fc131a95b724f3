#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Seconds on the monotonic clock, for deadlines and rate limits: the one clock the programs read
/// outside an `EventLoop` (whose own readings can be manual, `LoopClock.manual`).
public func monotonicNow() -> Double {
    seconds(on: CLOCK_MONOTONIC)
}

/// Seconds of CPU time a thread has used: the calling thread's by default, or another's through its
/// CPU-time clock (`pthread_getcpuclockid`). For bounds on what a thread may spend, which its being
/// made to wait (a busy machine) must not use up.
public func cpuSeconds(on clock: clockid_t = CLOCK_THREAD_CPUTIME_ID) -> Double {
    seconds(on: clock)
}

private func seconds(on clock: clockid_t) -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
