import Testing
@testable import DBusKit

/// The order replies leave their lanes in (ReplyLanes): in turn between destinations, in order for each,
/// a destination's refusals after its replies, and a lane that refuses goes on refusing until it is empty.
@Suite("Replies waiting per destination")
struct ReplyLanesTests {
    private func reply(_ serial: UInt32, to destination: String) -> Message {
        Message.refusal(
            answering: serial, destination: destination, MethodError(.failed, "reply \(serial)"))
    }

    /// Takes everything, as "destination:serial" (a refusal as "destination:!serial").
    private func drain(_ lanes: inout ReplyLanes) -> [String] {
        var taken: [String] = []
        while let item = lanes.takeNext() {
            switch item {
            case .message(let message):
                taken.append("\(message.destination ?? ""):\(message.replySerial)")
            case .refusal(let serial, let destination):
                taken.append("\(destination):!\(serial)")
            }
        }
        return taken
    }

    @Test("one reply to each destination in turn; each destination's in order; refusals after replies")
    func order() {
        var lanes = ReplyLanes()
        for serial: UInt32 in 1...3 { lanes.append(reply(serial, to: ":1.9"), to: ":1.9") }
        lanes.refuse(serial: 4, of: ":1.9")
        lanes.append(reply(7, to: ":1.5"), to: ":1.5")
        lanes.append(reply(8, to: ":1.5"), to: ":1.5")
        #expect(lanes.messageCount == 5 && lanes.refusalCount == 1)
        #expect(drain(&lanes) == [":1.9:1", ":1.5:7", ":1.9:2", ":1.5:8", ":1.9:3", ":1.9:!4"])
        #expect(lanes.isEmpty && lanes.messageCount == 0 && lanes.refusalCount == 0)
    }

    @Test("a destination at the limit is refused, and stays refused until its lane is empty")
    func refusingUntilEmpty() {
        var lanes = ReplyLanes()
        #expect(!lanes.refuses(":1.9", limit: 2))
        lanes.append(reply(1, to: ":1.9"), to: ":1.9")
        #expect(!lanes.refuses(":1.9", limit: 2))
        lanes.append(reply(2, to: ":1.9"), to: ":1.9")
        #expect(lanes.refuses(":1.9", limit: 2) && !lanes.refuses(":1.5", limit: 2))
        lanes.refuse(serial: 3, of: ":1.9")
        _ = lanes.takeNext()
        _ = lanes.takeNext()
        #expect(
            lanes.waiting(for: ":1.9") == 1 && lanes.refuses(":1.9", limit: 2), "one refusal still waits"
        )
        _ = lanes.takeNext()
        #expect(lanes.isEmpty && !lanes.refuses(":1.9", limit: 2))
    }

    @Test("a lane that never empties keeps only what still waits")
    func compaction() {
        var lanes = ReplyLanes()
        // Serials two apart: no run longer than one, the worst case for memory.
        for serial in 0..<10_000 { lanes.refuse(serial: UInt32(serial * 2), of: ":1.9") }
        for _ in 0..<9_990 { _ = lanes.takeNext() }
        #expect(lanes.waiting(for: ":1.9") == 10 && lanes.refusalCount == 10)
        #expect(
            lanes.storedRefusalRuns(for: ":1.9") < 3_000,
            "taken serials are dropped once they are most of the lane")
        guard case .refusal(let serial, _) = lanes.takeNext() else {
            Issue.record("no refusal left")
            return
        }
        #expect(serial == 19_980)
    }

    @Test("a pipelining sender's refused serials are kept as runs, and come back one by one in order")
    func refusalRuns() {
        var lanes = ReplyLanes()
        let serials: [UInt32] = Array(100..<50_100) + [7, 8, 50_100, UInt32.max, 0, 1]
        for serial in serials { lanes.refuse(serial: serial, of: ":1.9") }
        #expect(lanes.storedRefusalRuns(for: ":1.9") == 4, "100...50_099, 7...8, 50_100, UInt32.max...1")
        #expect(lanes.refusalCount == serials.count)
        var taken: [UInt32] = []
        while case .refusal(let serial, let destination)? = lanes.takeNext() {
            #expect(destination == ":1.9")
            taken.append(serial)
        }
        #expect(taken == serials && lanes.isEmpty && lanes.refusalCount == 0)
    }

    @Test("a refusal after the lane's runs were all taken starts a new run")
    func refusalAfterTaken() {
        var lanes = ReplyLanes()
        lanes.append(reply(1, to: ":1.9"), to: ":1.9")
        lanes.refuse(serial: 5, of: ":1.9")
        _ = lanes.takeNext()
        lanes.refuse(serial: 6, of: ":1.9")
        guard case .refusal(let first, _)? = lanes.takeNext(),
            case .refusal(let second, _)? = lanes.takeNext()
        else {
            Issue.record("two refusals expected")
            return
        }
        #expect(first == 5 && second == 6 && lanes.isEmpty)
    }
}
