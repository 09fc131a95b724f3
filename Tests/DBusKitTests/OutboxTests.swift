import Testing
@testable import DBusKit

/// Where a test's outbox hands its messages: a list of labels, and a queue length the test sets
/// (grown by `bytesPerMessage` for each message handed, as libdbus's would).
private final class FakeWire: OutboxWire {
    var queuedBytes = 0
    var bytesPerMessage = 0
    private(set) var handed: [String] = []

    func hand(_ message: Message) {
        handed.append(label(message))
        queuedBytes += bytesPerMessage
    }

    /// Takes the labels handed so far.
    func take() -> [String] {
        defer { handed = [] }
        return handed
    }
}

/// "client:serial" for a reply, "client:serial!" for an error, "client:serial refused" for a refusal,
/// "Member detail" for a signal.
private func label(_ message: Message) -> String {
    if message.isSignal {
        let detail = (try? message.arguments())?.first?.asString ?? ""
        return detail.isEmpty ? message.member : "\(message.member) \(detail)"
    }
    let reply = "\(message.destination ?? ""):\(message.replySerial)"
    guard let error = message.errorName else { return reply }
    return error == ErrorName.limitsExceeded.rawValue ? "\(reply) refused" : "\(reply)!"
}

/// Fake messages, made in process (no bus).
private func reply(_ serial: UInt32, to client: String) -> Message {
    Message.refusal(answering: serial, destination: client, MethodError(.failed, "")).returnInstead([])
}

private func error(_ serial: UInt32, to client: String) -> Message {
    Message.refusal(answering: serial, destination: client, MethodError(.failed, "no"))
}

private func signal(_ member: String, _ detail: String = "") -> Message {
    let message = try! Message.signal(
        path: ObjectPath(rawValue: "/a")!, interface: InterfaceName(rawValue: "org.example.A")!,
        member: member)
    try! message.append([.string(detail)])
    return message
}

/// Small limits, so that each rule is reached with a few messages.
private let limits = OutboxLimits(
    backlogLimit: 1000, readingPauseLimit: 4000, lanesEngageLimit: 1000, laneLimit: 300,
    floodLaneLimit: 100,
    waitingCallsPerSender: 3, laneMessageLimit: 8, laneRefusalLimit: 4, maximumHeldPerClient: 2,
    smallSocketBuffer: 4096, messagesPerRound: 16)

@Suite("The outbox: what leaves a connection, and when")
final class OutboxTests {
    private var outbox = Outbox(limits: limits)
    private let wire = FakeWire()

    @Test("with nothing held, a reply, an error and a signal are handed at once, in order")
    func idle() {
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.submit(error(2, to: ":1.5"), as: .error, to: wire)
        outbox.submit(signal("Changed"), as: .signal(.state), to: wire)
        #expect(wire.take() == [":1.5:1", ":1.5:2!", "Changed"])
        #expect(!outbox.isBackedUp)
    }

    // MARK: Rule 1, the group

    @Test("a group holds replies and signals until it ends, in order; a later reply skips it")
    func group() {
        outbox.beginGroup()
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.submit(signal("Changed"), as: .signal(.state), to: wire)
        outbox.submit(signal("Ping"), as: .signal(.event), to: wire)
        outbox.submit(reply(9, to: ":1.7"), as: .laterReply, to: wire)
        #expect(wire.take() == [":1.7:9"])
        #expect(outbox.endGroup(undone: nil, answeringWithErrors: true, to: wire).isEmpty)
        #expect(wire.take() == [":1.5:1", "Changed", "Ping"])
    }

    @Test("an undone group drops its signals and answers its returns with its error; errors stay")
    func undoneGroup() {
        outbox.beginGroup()
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.submit(signal("Changed"), as: .signal(.state), to: wire)
        outbox.submit(error(2, to: ":1.5"), as: .error, to: wire)
        _ = outbox.endGroup(
            undone: MethodError(.failed, "not saved"), answeringWithErrors: true, to: wire)
        #expect(wire.take() == [":1.5:1!", ":1.5:2!"])
    }

    @Test(
        "on a connection that never answers with an error, an undone return goes as it was or as its undone reply"
    )
    func undoneWithoutErrors() throws {
        outbox.beginGroup()
        let marked = reply(1, to: ":1.5")
        marked.undone = ("Set", [.string("unchanged")])
        outbox.submit(marked, as: .reply, to: wire)
        outbox.submit(reply(2, to: ":1.5"), as: .reply, to: wire)
        let answered = outbox.endGroup(
            undone: MethodError(.failed, "not saved"), answeringWithErrors: false, to: wire)
        #expect(answered == ["Set"])
        #expect(wire.take() == [":1.5:1", ":1.5:2"])
    }

    // MARK: Rule 2, held clients

    @Test("a held client's replies wait for its last release, in order; other clients' do not")
    func heldClient() {
        outbox.hold(repliesTo: ":1.5")
        outbox.hold(repliesTo: ":1.5")
        #expect(!outbox.keepsAHeldReply, "held, but nobody waits yet")
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        #expect(outbox.keepsAHeldReply)
        outbox.submit(reply(2, to: ":1.6"), as: .reply, to: wire)
        outbox.submit(error(3, to: ":1.5"), as: .error, to: wire)
        outbox.submit(signal("Changed"), as: .signal(.state), to: wire)
        #expect(wire.take() == [":1.6:2", "Changed"], "signals never wait for a client")
        outbox.release(repliesTo: ":1.5", to: wire)
        #expect(wire.take().isEmpty, "one hold is left")
        #expect(outbox.keepsAHeldReply)
        outbox.release(repliesTo: ":1.5", to: wire)
        #expect(wire.take() == [":1.5:1", ":1.5:3!"])
        #expect(!outbox.keepsAHeldReply)
        outbox.submit(reply(4, to: ":1.5"), as: .reply, to: wire)
        #expect(wire.take() == [":1.5:4"])
    }

    @Test("past maximumHeldPerClient the hold is given up and the replies go in order")
    func heldClientGivenUp() {
        outbox.hold(repliesTo: ":1.5")
        for serial: UInt32 in 1...3 { outbox.submit(reply(serial, to: ":1.5"), as: .reply, to: wire) }
        #expect(wire.take() == [":1.5:1", ":1.5:2", ":1.5:3"])
        #expect(!outbox.keepsAHeldReply, "given up: nothing kept")
        outbox.release(repliesTo: ":1.5", to: wire)
        #expect(wire.take().isEmpty)
    }

    @Test("drainAll sends the held replies; held state signals still wait for the bus")
    func drain() {
        outbox.hold(repliesTo: ":1.5")
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.afterRound(queuedBytes: 2000)
        outbox.submit(signal("Changed"), as: .signal(.state), to: wire)
        outbox.drainAll(to: wire)
        #expect(wire.take() == [":1.5:1"])
        #expect(!outbox.keepsAHeldReply)
        #expect(outbox.heldSignalCount == 1)
    }

    // MARK: Rule 3, lanes

    @Test("while replies are backed up they wait in lanes and go in turn while the queue is short")
    func lanes() {
        outbox.afterRound(queuedBytes: 1001)
        for serial: UInt32 in 1...2 { outbox.submit(reply(serial, to: ":1.9"), as: .reply, to: wire) }
        outbox.submit(reply(5, to: ":1.5"), as: .reply, to: wire)
        outbox.submit(signal("Changed"), as: .signal(.event), to: wire)
        #expect(wire.take() == ["Changed"], "signals do not wait in lanes")
        wire.queuedBytes = 301
        outbox.handWaiting(to: wire)
        #expect(wire.take().isEmpty, "over laneLimit")
        wire.queuedBytes = 0
        wire.bytesPerMessage = 150
        outbox.handWaiting(to: wire)
        #expect(
            wire.take() == [":1.9:1", ":1.5:5", ":1.9:2"],
            "in turn, while the queue is at most laneLimit")
    }

    @Test("a sender with waitingCallsPerSender replies waiting is refused, after its replies")
    func refusal() {
        outbox.afterRound(queuedBytes: 1001)
        for serial: UInt32 in 1...3 { outbox.submit(reply(serial, to: ":1.9"), as: .reply, to: wire) }
        let refused = outbox.refuses(serial: 4, from: ":1.9"),
            other = outbox.refuses(serial: 7, from: ":1.5")
        #expect(refused && !other)
        outbox.afterRound(queuedBytes: 1001)
        #expect(outbox.wantsSmallSocketBuffer, "small while a sender is refused")
        outbox.handWaiting(to: wire)
        #expect(wire.take() == [":1.9:1", ":1.9:2", ":1.9:3", ":1.9:4 refused"])
        outbox.afterRound(queuedBytes: 0)
        #expect(!outbox.wantsSmallSocketBuffer && !outbox.isBackedUp)
    }

    @Test("a held client's released replies join its lane only behind replies waiting there")
    func heldThenLane() {
        outbox.hold(repliesTo: ":1.5")
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.afterRound(queuedBytes: 1001)
        outbox.submit(reply(2, to: ":1.6"), as: .reply, to: wire)
        outbox.release(repliesTo: ":1.5", to: wire)
        #expect(wire.take() == [":1.5:1"], "no lane of its own waits: out at once")
        outbox.hold(repliesTo: ":1.6")
        outbox.submit(reply(3, to: ":1.6"), as: .reply, to: wire)
        outbox.release(repliesTo: ":1.6", to: wire)
        #expect(wire.take().isEmpty)
        outbox.handWaiting(to: wire)
        #expect(wire.take() == [":1.6:2", ":1.6:3"])
    }

    @Test("drainAll empties the lanes whatever the queue")
    func drainLanes() {
        outbox.afterRound(queuedBytes: 1001)
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        wire.queuedBytes = 5000
        outbox.drainAll(to: wire)
        #expect(wire.take() == [":1.5:1"])
    }

    // MARK: Rule 4, merged state

    @Test(
        "while backed up, state signals are merged by key, sent in the order of their latest at half the limit"
    )
    func mergedState() {
        outbox.afterRound(queuedBytes: 1001)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        outbox.submit(signal("Focus"), as: .signal(.state), to: wire)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        outbox.submit(signal("Value", "2"), as: .signal(.state), to: wire)
        #expect(wire.take().isEmpty && outbox.heldSignalCount == 3)
        outbox.afterRound(queuedBytes: 600)
        outbox.submit(signal("Focus"), as: .signal(.state), to: wire)
        wire.queuedBytes = 501
        outbox.handWaiting(to: wire)
        #expect(wire.take().isEmpty, "still over half the limit")
        wire.queuedBytes = 500
        outbox.handWaiting(to: wire)
        #expect(wire.take() == ["Value 1", "Value 2", "Focus"])
        outbox.submit(signal("Focus"), as: .signal(.state), to: wire)
        #expect(wire.take() == ["Focus"])
    }

    @Test("an event is never merged: it goes at once, behind the state held before it")
    func event() {
        outbox.afterRound(queuedBytes: 1001)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        outbox.submit(signal("Ping"), as: .signal(.event), to: wire)
        outbox.submit(signal("Ping"), as: .signal(.event), to: wire)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        #expect(wire.take() == ["Value 1", "Ping", "Ping"])
        #expect(outbox.heldSignalCount == 1)
    }

    @Test("a group's state signals are merged on their way out of it when the bus is backed up")
    func groupThenMerged() {
        outbox.afterRound(queuedBytes: 1001)
        outbox.beginGroup()
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        _ = outbox.endGroup(undone: nil, answeringWithErrors: true, to: wire)
        #expect(wire.take().isEmpty, "the reply waits in its lane, the signals are held")
        #expect(outbox.heldSignalCount == 1)
        wire.queuedBytes = 0
        outbox.handWaiting(to: wire)
        #expect(
            wire.take() == ["Value 1", ":1.5:1"],
            "while replies wait in lanes, the held signals go first, once a round")
    }

    @Test(
        "while replies wait in lanes, state signals are merged even with a short queue, and go once a round ahead of the lanes"
    )
    func mergedDuringLanes() {
        outbox.afterRound(queuedBytes: OutboxLimits.standard.lanesEngageLimit + 1)
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.afterRound(queuedBytes: 0)
        for _ in 0..<3 { outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire) }
        #expect(wire.take().isEmpty, "the lane waits for its round; the signals are merged meanwhile")
        #expect(outbox.heldSignalCount == 1)
        outbox.handWaiting(to: wire)
        #expect(wire.take() == ["Value 1", ":1.5:1"])
        outbox.afterRound(queuedBytes: 0)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        #expect(wire.take() == ["Value 1"], "the lanes are empty: signals go at once again")
    }

    // MARK: After a round

    @Test(
        "reading pauses past readingPauseLimit or the lanes' counts, and resumes when both are at half")
    func pause() {
        outbox.afterRound(queuedBytes: 4001)
        #expect(outbox.pausesReading && outbox.isBackedUp)
        outbox.afterRound(queuedBytes: 2001)
        #expect(outbox.pausesReading)
        outbox.afterRound(queuedBytes: 2000)
        #expect(!outbox.pausesReading)
        for serial: UInt32 in 1...9 {
            outbox.submit(reply(serial, to: ":1.\(serial)"), as: .reply, to: wire)
        }
        outbox.afterRound(queuedBytes: 1001)
        #expect(outbox.pausesReading, "more than laneMessageLimit replies wait")
        wire.queuedBytes = 0
        wire.bytesPerMessage = 60
        outbox.handWaiting(to: wire)
        outbox.afterRound(queuedBytes: 0)
        #expect(
            !outbox.pausesReading && outbox.isBackedUp,
            "the lanes are at half; replies still wait in them")
    }

    @Test("limits that break an invariant stop the program when they are made (a programming error)")
    func limitsChecked() async {
        _ = OutboxLimits.standard
        await #expect(processExitsWith: .failure) {
            _ = OutboxLimits(
                backlogLimit: 4000, readingPauseLimit: 4000, lanesEngageLimit: 1000, laneLimit: 300,
                floodLaneLimit: 100, waitingCallsPerSender: 3, laneMessageLimit: 8, laneRefusalLimit: 4,
                maximumHeldPerClient: 2, smallSocketBuffer: 4096, messagesPerRound: 16)
        }
        await #expect(processExitsWith: .failure) {
            _ = OutboxLimits(
                backlogLimit: 1000, readingPauseLimit: 4000, lanesEngageLimit: 1000, laneLimit: 2000,
                floodLaneLimit: 100, waitingCallsPerSender: 3, laneMessageLimit: 8, laneRefusalLimit: 4,
                maximumHeldPerClient: 2, smallSocketBuffer: 4096, messagesPerRound: 16)
        }
    }

    @Test("discardWaiting forgets what waits when the connection closes")
    func discard() {
        outbox.afterRound(queuedBytes: 1001)
        outbox.submit(signal("Value", "1"), as: .signal(.state), to: wire)
        outbox.submit(reply(1, to: ":1.5"), as: .reply, to: wire)
        outbox.discardWaiting()
        outbox.drainAll(to: wire)
        outbox.handWaiting(to: wire)
        #expect(wire.take().isEmpty && outbox.heldSignalCount == 0)
    }
}
