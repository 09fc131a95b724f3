import DBusKit

/// SIGHUPs, coalesced. The first in a while reloads at once; those that come within `spacing` of
/// that reload wait, and one more reload runs at the end of the spacing for all of them, its log
/// line saying how many it merged. So a flood of SIGHUP (a script in a loop, a service manager
/// retrying) costs one reload and one log line per `spacing`, not one per turn of the loop, and the
/// file as it was at the last SIGHUP is always the one applied. The loop already merges the
/// signals that arrive between two of its turns into one call of `requested`.
final class ReloadRequests {
    /// The shortest time between two reloads.
    static let spacing = 0.25
    /// Unowned: the loop keeps the SIGHUP handler, which keeps this.
    private unowned let loop: EventLoop
    /// Reloads, given how many further requests this reload stands for (0: itself alone).
    private let reload: (_ merged: Int) -> Void
    /// Requests that came since the last reload, within its spacing.
    private var waiting = 0
    private var spacingEnds: TimerID?

    init(loop: EventLoop, reload: @escaping (_ merged: Int) -> Void) {
        self.loop = loop
        self.reload = reload
    }

    /// A SIGHUP (from the loop's signal handler).
    func requested() {
        if spacingEnds != nil { waiting += 1; return }
        run(merged: 0)
    }

    private func run(merged: Int) {
        reload(merged)
        spacingEnds = loop.schedule(after: Self.spacing) { [unowned self] in
            spacingEnds = nil
            let merged = waiting
            waiting = 0
            if merged > 0 { run(merged: merged - 1) }
        }
    }
}
