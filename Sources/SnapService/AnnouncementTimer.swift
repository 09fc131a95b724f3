import DBusKit

/// Coalesces announcements: at most one per `interval`. The first change arms a timer and later
/// changes ride on it; `fire` runs when the timer does and reads the value then, so a burst of
/// steps yields one announcement that carries the latest value.
final class AnnouncementTimer {
    let loop: EventLoop
    let interval: Double
    private let fire: () -> Void
    private var pending: TimerID?

    init(loop: EventLoop, interval: Double, fire: @escaping () -> Void) {
        self.loop = loop
        self.interval = interval
        self.fire = fire
    }

    /// Something worth announcing changed.
    func changed() {
        guard pending == nil else { return }
        pending = loop.schedule(after: interval) { [unowned self] in
            self.pending = nil
            self.fire()
        }
    }

    /// Drops an announcement that has not gone out (the accessibility bus went away).
    func cancel() {
        if let pending { loop.cancel(pending) }
        pending = nil
    }
}
