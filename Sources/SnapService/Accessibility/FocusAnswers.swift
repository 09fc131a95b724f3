import DBusKit

/// Why a `Focus` did not reach screen readers (its bus errors are in `ErrorMapping`).
public enum FocusFailure: Error, Equatable, Sendable {
    /// snapsized was started with --no-accessibility.
    case turnedOff
    /// No accessibility bus is running: none found, none being joined.
    case noBus
    /// The accessibility bus (or, while the slider is still joining it, the bus or its registry)
    /// did not answer within `seconds`: its dbus-daemon hangs, or is overloaded.
    case notAnswering(seconds: Int)
}

/// The `Focus` calls whose focus events went out on the accessibility bus, each answered once
/// the bus has shown that it read them: a round trip to it (`Peer.Ping` to the bus itself) sent
/// after the events, which a dbus-daemon answers in order. A bus that does not answer within
/// `bound` seconds makes them fail with `notAnswering`, so `Focus` never says success for
/// events nobody can receive, and nothing waits on the loop meanwhile.
///
/// One round trip at a time: the calls that come while one is under way share the next one (a
/// client sending Focus after Focus to a hung bus adds no pending call per Focus), and at most
/// `maximumWaiting` answers are kept.
final class FocusAnswers {
    typealias Answer = (FocusFailure?) -> Void

    /// How long the bus has to answer.
    static let bound = 2.0
    static let maximumWaiting = 1024

    private let loop: EventLoop
    /// The accessibility bus connection the events went out on (nil when it is gone).
    private let connection: () -> Connection?
    /// Answered by the round trip under way; nil when none is.
    private var inFlight: [Answer]?
    /// Their events went out after the round trip under way was sent: the next one answers them.
    private var next: [Answer] = []
    /// Sends the next round trip on the loop's next round (`startSoon`); nil when none is scheduled.
    private var roundTripTimer: TimerID?
    /// Whether the last round trip failed (logged once, until one succeeds again).
    private var failing = false

    init(loop: EventLoop, connection: @escaping () -> Connection?) {
        self.loop = loop
        self.connection = connection
    }

    /// The focus events for `answer`'s call have just been sent.
    func sent(_ answer: @escaping Answer) {
        guard (inFlight?.count ?? 0) + next.count < Self.maximumWaiting else {
            return answer(.notAnswering(seconds: Int(Self.bound)))
        }
        next.append(answer)
        startSoon()
    }

    /// Answers everything waiting with `failure` (the daemon stops, the slider left the bus).
    func abandon(_ failure: FocusFailure) {
        if let roundTripTimer { loop.cancel(roundTripTimer) }
        roundTripTimer = nil
        let waiting = (inFlight ?? []) + next
        inFlight = nil
        next = []
        for answer in waiting { answer(failure) }
    }

    /// Sent on the loop's next round rather than now: in a group commit the focus events are held
    /// until the group ends, and the round trip must follow them, not overtake them.
    private func startSoon() {
        guard inFlight == nil, roundTripTimer == nil else { return }
        roundTripTimer = loop.schedule(after: 0) { [weak self] in
            guard let self else { return }
            self.roundTripTimer = nil
            self.roundTrip()
        }
    }

    private func roundTrip() {
        guard inFlight == nil, !next.isEmpty else { return }
        let batch = next
        next = []
        guard let connection = connection() else {
            for answer in batch { answer(.notAnswering(seconds: Int(Self.bound))) }
            return
        }
        inFlight = batch
        do {
            try connection.callAsync(
                destination: BusName.bus.rawValue, path: .bus, interface: InterfaceName.peer.rawValue,
                member: "Ping", timeoutMilliseconds: Int32(Self.bound * 1000)
            ) {
                [weak self] reply in self?.finished(reply)
            }
        } catch {
            finished(.failure(error))
        }
    }

    private func finished(_ reply: Result<[DBusValue], MethodError>) {
        let batch = inFlight ?? []
        inFlight = nil
        let failure: FocusFailure?
        switch reply {
        case .success:
            failure = nil
            if failing { log("the accessibility bus answers again; Focus works again") }
            failing = false
        case .failure(let error):
            failure = .notAnswering(seconds: Int(Self.bound))
            if !failing {
                log(
                    "the accessibility bus did not show within \(Int(Self.bound)) s that it took the focus events "
                        + "(\(error.message)); Focus fails until it does. The slider stays on that bus, which may resume, "
                        + "and moves when a new at-spi-bus-launcher takes org.a11y.Bus")
            }
            failing = true
        }
        for answer in batch { answer(failure) }
        if !next.isEmpty { startSoon() }
    }
}
