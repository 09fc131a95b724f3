#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Seconds on the monotonic clock, for deadlines and rate limits: the one clock the programs read
/// outside an `EventLoop` (whose own readings can be manual, `LoopClock.manual`).
public func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
