import Testing
@_spi(Testing) import DBusKit
import TestSupport

/// The event loop on a manual clock (`EventLoop(clock: .manual())`, `advanceTime(by:)`): timers and
/// libdbus timeouts fire at their deadlines and in order, with no wall clock involved.
@Suite("EventLoop on a manual clock")
struct ClockTests {
    @Test("timers fire at their deadlines, in deadline order; cancelled ones never")
    func timers() {
        let loop = EventLoop(clock: .manual(start: 100))
        var fired: [(String, Double)] = []
        loop.schedule(after: 0.1) { fired.append(("late", loop.now)) }
        loop.schedule(after: 0.02) { fired.append(("early", loop.now)) }
        let cancelled = loop.schedule(after: 0.05) { fired.append(("cancelled", loop.now)) }
        loop.cancel(cancelled)
        loop.advanceTime(by: 0.019)
        #expect(fired.isEmpty)
        loop.advanceTime(by: 1)
        #expect(fired.map(\.0) == ["early", "late"])
        #expect(fired.map(\.1) == [100.02, 100.1])
        #expect(loop.now == 101.019)
    }

    @Test("a timer scheduled by a timer fires within the same advance, at its own deadline")
    func chained() {
        let loop = EventLoop(clock: .manual())
        var times: [Double] = []
        loop.schedule(after: 1) {
            times.append(loop.now)
            loop.schedule(after: 2) { times.append(loop.now) }
        }
        loop.advanceTime(by: 10)
        #expect(times == [1, 3])
    }

    @Test(
        "the earliest timer cancelled: no round at its deadline, a later one fires at its own; one scheduled earlier than all at its own"
    )
    func earliestCancelled() {
        let loop = EventLoop(clock: .manual())
        var times: [(String, Double)] = []
        let first = loop.schedule(after: 1) { times.append(("first", loop.now)) }
        loop.schedule(after: 5) { times.append(("later", loop.now)) }
        loop.cancel(first)
        let rounds = loop.wakeUps
        loop.advanceTime(by: 2)
        #expect(times.isEmpty)
        #expect(
            loop.wakeUps - rounds == 1,
            "a round at the cancelled deadline: \(loop.wakeUps - rounds) rounds")
        loop.schedule(after: 0.5) { times.append(("sooner", loop.now)) }
        loop.advanceTime(by: 10)
        #expect(times.map(\.0) == ["sooner", "later"])
        #expect(times.map(\.1) == [2.5, 5])
    }

    @Test("an async call's libdbus timeout runs on the loop's clock")
    func callTimeout() throws {
        let bus = try PrivateSessionBus()
        // Owns a name but is never dispatched, so it never answers.
        let silent = try Connection(address: bus.address)
        #expect(try silent.requestName(BusName(rawValue: "org.example.Silent")!))
        let loop = EventLoop(clock: .manual())
        let connection = try Connection(address: bus.address)
        loop.add(connection)
        var replies: [(Result<[DBusValue], MethodError>, Double)] = []
        try connection.callAsync(
            destination: "org.example.Silent", path: .root, interface: "org.example.X",
            member: "Hang", timeoutMilliseconds: 300
        ) { replies.append(($0, loop.now)) }
        loop.advanceTime(by: 0.299)
        #expect(replies.isEmpty, "timed out early: \(replies)")
        loop.advanceTime(by: 60)
        #expect(replies.count == 1)
        if case .failure(let error)? = replies.first?.0 {
            #expect(error.name == .noReply)
        } else {
            Issue.record("expected NoReply, got \(replies)")
        }
        #expect(replies.first?.1 == 0.3)
    }
}
