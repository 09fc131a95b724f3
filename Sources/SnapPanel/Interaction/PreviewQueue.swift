/// At most one Preview in flight, the newest x waiting behind it ("latest wins"): GTK delivers motion
/// as fast as the pointer reports it (1 kHz mice), and the daemon answers a client that keeps more than
/// 128 calls waiting with LimitsExceeded. A preview is about where the pointer is now, so every x but
/// the newest is worthless once a newer one arrives.
///
/// Commit and Cancel need no queue: D-Bus keeps one connection's calls in order, so a Commit sent while
/// a Preview is in flight arrives after it; they only drop the x that waits.
public struct PreviewQueue: Equatable, Sendable {
    /// A Preview has been sent and its reply (or error) has not come back.
    public private(set) var inFlight = false
    /// The newest x asked for while one was in flight.
    public private(set) var waiting: Double?

    public init() {}

    /// A preview at `x` is wanted: returns the x to send now, or nil when it waits (replacing any older).
    public mutating func request(_ x: Double) -> Double? {
        if inFlight {
            waiting = x
            return nil
        }
        inFlight = true
        return x
    }

    /// The Preview in flight was answered: returns the waiting x to send next (it is then in flight), or nil.
    public mutating func answered() -> Double? {
        guard let next = waiting else {
            inFlight = false
            return nil
        }
        waiting = nil
        return next
    }

    /// The gesture ended (Commit or Cancel sent): the waiting x is dropped. A Preview still in flight
    /// stays counted until its reply.
    public mutating func dropWaiting() {
        waiting = nil
    }
}
