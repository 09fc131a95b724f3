import DBusKit

/// Asks again, later, after a request to the registry failed: 1 s, then twice as long each time, at
/// most 30 s, on the loop's timers (the loop never waits for the registry). A registry that is slow
/// or refusing for a while is asked until it answers; a new registry starts the delays afresh.
final class Retry {
    static let first = 1.0
    static let longest = 30.0

    private let loop: EventLoop
    private var delay = Retry.first
    private var timer: TimerID?

    init(loop: EventLoop) {
        self.loop = loop
    }

    deinit { cancel() }

    /// Runs `attempt` after the current delay (replacing any attempt already waiting), and lengthens the next.
    func schedule(_ attempt: @escaping () -> Void) {
        cancel()
        timer = loop.schedule(after: delay) { [weak self] in
            self?.timer = nil
            attempt()
        }
        delay = min(delay * 2, Self.longest)
    }

    /// The request went through, or there is a new registry to ask: no attempt waits, and the next delay is the first.
    func reset() {
        cancel()
        delay = Self.first
    }

    private func cancel() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }
}
