import Testing
import DBusKit
import TestSupport

/// `callAsync(…holdingRepliesTo:…)`: a client's replies wait for a call about it, until that call
/// is answered or its timeout passes, and no longer (on a manual clock: no wall-clock bounds).
@Suite("Replies held for a call about their client")
struct HeldRepliesTests {
    static let service = BusName(rawValue: "org.example.Held")!
    static let interface = InterfaceName(rawValue: "org.example.Held")!

    /// A server on a manual-clock loop whose `Ping` asks `asked` about the caller, holding its reply,
    /// and then (from a timer, so after the reply was made) signals `After`; and a client on the same
    /// loop. `asked` is a connection the loop never dispatches: it answers when the test says.
    final class Setup {
        let bus: PrivateSessionBus
        let loop = EventLoop(clock: .manual())
        let server: Connection, client: Connection, asked: Connection
        var replies: [Result<[DBusValue], MethodError>] = []
        var answers: [Result<[DBusValue], MethodError>] = []
        var afterSignals = 0
        var pendingQuestions: [MethodCall] = []

        init() throws {
            bus = try PrivateSessionBus()
            server = try Connection(address: bus.address)
            client = try Connection(address: bus.address)
            asked = try Connection(address: bus.address)
            #expect(try server.requestName(HeldRepliesTests.service))
            #expect(try asked.requestName(BusName(rawValue: "org.example.Asked")!))
            try asked.export(
                path: .root,
                interfaces: [
                    InterfaceTable(
                        "org.example.Asked",
                        methods: [
                            Method(
                                "Who", inputs: [Argument("name", "s")], outputs: [Argument("pid", "u")]
                            ) { [unowned self] call throws(MethodError) in
                                self.pendingQuestions.append(call)
                                return [.uint32(42)]
                            }
                        ])
                ])
            try server.export(
                path: .root,
                interfaces: [
                    InterfaceTable(
                        HeldRepliesTests.interface.rawValue,
                        methods: [
                            Method("Ping", outputs: [Argument("text", "s")]) {
                                [unowned self] call throws(MethodError) in
                                try self.askAbout(call)
                                return [.string("pong")]
                            },
                            // As Ping, but answered through `answerLater`, at once: that answer goes out as any reply does.
                            Method("PingLater", outputs: [Argument("text", "s")]) {
                                [unowned self] call throws(MethodError) in
                                try self.askAbout(call)
                                self.server.answerLater().succeed([.string("later")])
                                return [.string("pong")]
                            },
                            Method("Plain") { _ throws(MethodError) in [] }
                        ])
                ])
            client.addMatch("type='signal',interface='\(HeldRepliesTests.interface.rawValue)'")
            client.onSignal(interface: HeldRepliesTests.interface.rawValue, member: "After") {
                [unowned self] _ in self.afterSignals += 1
            }
            // The match rule is in place once the bus has answered a call sent after it.
            _ = try client.call(
                destination: "org.freedesktop.DBus",
                path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                interface: "org.freedesktop.DBus", member: "GetId", timeoutMilliseconds: 5000)
            loop.add(server)
            loop.add(client)
        }

        /// What Ping does before it answers: asks `asked` about the caller, holding the caller's
        /// replies, and signals `After` from a timer (so after the reply was made).
        func askAbout(_ call: MethodCall) throws(MethodError) {
            try server.callAsync(
                destination: "org.example.Asked", path: .root, interface: "org.example.Asked",
                member: "Who", arguments: [.string(call.sender)], timeoutMilliseconds: 300,
                holdingRepliesTo: call.sender
            ) { [unowned self] in self.answers.append($0) }
            loop.schedule(after: 0) { [unowned self] in
                try? self.server.emitSignal(
                    path: .root, interface: HeldRepliesTests.interface, member: "After", as: .event)
            }
        }

        func ping(_ count: Int = 1, member: String = "Ping") throws {
            for _ in 0..<count {
                try client.callAsync(
                    destination: HeldRepliesTests.service.rawValue, path: .root,
                    interface: HeldRepliesTests.interface.rawValue, member: member,
                    timeoutMilliseconds: Int32.max
                ) { [unowned self] in self.replies.append($0) }
            }
        }

        /// Runs rounds at the same manual time (messages still travel through the real bus), letting
        /// `asked` answer, until `done`.
        @discardableResult
        func spin(until done: () -> Bool) -> Bool {
            waitUntil(timeout: 10) {
                loop.advanceTime(by: 0)
                asked.dispatchPending()
                return done()
            }
        }
    }

    @Test("the reply waits for the answer about its client, and goes out as soon as it has been handled")
    func untilAnswered() throws {
        let setup = try Setup()
        try setup.ping()
        // `asked` is not dispatched yet, so it has not answered. The After signal left the server
        // after the reply was made: had the reply not been held, it would have reached the client first.
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.afterSignals == 1
            })
        setup.loop.advanceTime(by: 0)
        #expect(setup.replies.isEmpty, "the reply did not wait: \(setup.replies)")
        #expect(setup.spin { !setup.replies.isEmpty })
        #expect(setup.pendingQuestions.count == 1)
        #expect(setup.answers.count == 1, "the reply went out before the answer was handled")
        if case .success(let values)? = setup.answers.first {
            #expect(values == [.uint32(42)])
        } else {
            Issue.record("\(setup.answers)")
        }
        #expect(setup.loop.now == 0, "released by the timeout, not by the answer")
    }

    @Test(
        "a call answered later (answerLater) is held as any reply: it waits for the answer about its client"
    )
    func laterReply() throws {
        let setup = try Setup()
        try setup.ping(member: "PingLater")
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.afterSignals == 1
            })
        setup.loop.advanceTime(by: 0)
        #expect(setup.replies.isEmpty, "the later reply did not wait: \(setup.replies)")
        #expect(setup.spin { !setup.replies.isEmpty })
        #expect(setup.answers.count == 1, "the later reply went out before the answer was handled")
        if case .success(let values)? = setup.replies.first {
            #expect(values == [.string("later")])
        } else {
            Issue.record("\(setup.replies)")
        }
    }

    @Test(
        "a peer that never answers holds the reply for the call's timeout, no longer; a burst past the maximum is not held"
    )
    func bounded() throws {
        let setup = try Setup()
        // `asked` is never dispatched here: its questions stay unanswered.
        try setup.ping()
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.afterSignals == 1
            })
        setup.loop.advanceTime(by: 0.299)
        #expect(setup.replies.isEmpty, "released before the timeout: \(setup.replies)")
        setup.loop.advanceTime(by: 0.001)
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.replies.count == 1
            })
        #expect(setup.answers.count == 1)
        if case .failure(let error)? = setup.answers.first {
            #expect(error.name == .noReply)
        } else {
            Issue.record("\(setup.answers)")
        }
        // A client pipelining calls: past the maximum its replies go out without waiting for anything.
        let burst = 70
        try setup.ping(burst)
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.afterSignals == 1 + burst
            })
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.replies.count >= 1 + 65
            })
        #expect(setup.loop.now == 0.3, "the burst's replies waited for the timeout")
        setup.loop.advanceTime(by: 1)
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.replies.count == 1 + burst
            })
    }

    @Test(
        "a held reply released while a later group commit is undone goes out as it was: its own group was durable"
    )
    func releasedDuringAnUndoneGroup() throws {
        let setup = try Setup()
        var undoNext = false
        setup.loop.groupCommit = GroupCommit(
            begin: {}, end: { undoNext ? MethodError(.failed, "undone") : nil })
        try setup.ping()
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.afterSignals == 1
            })
        #expect(setup.replies.isEmpty)
        // Every group from here on is undone (another client's call shows it), the one that
        // dispatches the answer about the first client too.
        undoNext = true
        let other = try Connection(address: setup.bus.address)
        var otherReply: Result<[DBusValue], MethodError>?
        try other.callAsync(
            destination: HeldRepliesTests.service.rawValue, path: .root,
            interface: HeldRepliesTests.interface.rawValue, member: "Plain",
            timeoutMilliseconds: Int32.max
        ) { otherReply = $0 }
        other.flush()
        setup.asked.dispatchPending()
        setup.asked.flush()
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); other.dispatchPending(); return otherReply != nil
            })
        if case .failure(let error)? = otherReply {
            #expect(error.message == "undone")
        } else {
            Issue.record("\(String(describing: otherReply))")
        }
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return !setup.replies.isEmpty
            })
        if case .success(let values)? = setup.replies.first {
            #expect(values == [.string("pong")])
        } else {
            Issue.record("the held reply was tied to the later, undone group: \(setup.replies)")
        }
    }

    @Test("flush, the last word before closing, sends what is held without waiting for the answer")
    func flushReleases() throws {
        let setup = try Setup()
        try setup.ping()
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return setup.afterSignals == 1
            })
        #expect(setup.replies.isEmpty)
        #expect(setup.server.flush(timeout: 5))
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(by: 0); return !setup.replies.isEmpty
            })
        #expect(setup.answers.isEmpty && setup.loop.now == 0)
    }
}
