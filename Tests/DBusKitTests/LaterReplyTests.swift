import Foundation
import Synchronization
import Testing
import DBusKit
import TestSupport

/// `Connection.answerLater()`: a call answered after its handler returned, while the loop serves others.
@Suite("Answering a call later")
struct LaterReplyTests {
    static let busName = BusName(rawValue: "org.example.Later")!
    static let path = ObjectPath(rawValue: "/org/example/Later")!
    static let interface = "org.example.Later1"
    static let nope = ErrorName(rawValue: "org.example.Later1.Error.Nope")!

    /// Only touched on the loop thread.
    final class Waiting {
        var replies: [LaterReply] = []
    }

    let bus: PrivateSessionBus
    let service: LoopThread

    init() throws {
        bus = try startBus()
        let address = bus.address
        service = try LoopThread { loop in
            let connection = try Connection(address: address)
            let waiting = Waiting()
            try connection.export(
                path: Self.path,
                interfaces: [
                    InterfaceTable(
                        Self.interface,
                        methods: [
                            // Answered by the next Release.
                            Method("Wait", outputs: [Argument("value", "u")]) {
                                [unowned connection] _ throws(MethodError) in
                                waiting.replies.append(connection.answerLater())
                                return [.uint32(0)]
                            },
                            Method("Release", inputs: [Argument("fail", "b")]) {
                                call throws(MethodError) in
                                let fail = try call.bool(0)
                                for reply in waiting.replies {
                                    if fail {
                                        reply.fail(MethodError(Self.nope, "released with an error"))
                                    } else {
                                        reply.succeed([.uint32(7)])
                                    }
                                }
                                waiting.replies = []
                                return []
                            },
                            // Answered before the handler returns.
                            Method("AtOnce", outputs: [Argument("value", "u")]) {
                                [unowned connection] _ throws(MethodError) in
                                connection.answerLater().succeed([.uint32(3)])
                                return [.uint32(0)]
                            },
                            // Asked to answer later, then threw: the error is the answer.
                            Method("Throws", outputs: [Argument("value", "u")]) {
                                [unowned connection] _ throws(MethodError) in
                                let later = connection.answerLater()
                                _ = later
                                throw MethodError(Self.nope, "thrown")
                            },
                            Method("Plain", outputs: [Argument("value", "u")]) { _ throws(MethodError) in
                                [.uint32(1)]
                            },
                            Method("Waiting", outputs: [Argument("count", "u")]) {
                                _ throws(MethodError) in [.uint32(UInt32(waiting.replies.count))]
                            }
                        ])
                ])
            guard try connection.requestName(Self.busName) else {
                throw TestFailure("name already taken")
            }
            loop.add(connection)
        }
    }

    private static func call(_ client: Connection, _ member: String, _ arguments: [DBusValue] = [])
        throws(MethodError) -> [DBusValue]
    {
        try client.call(
            destination: Self.busName.rawValue, path: Self.path, interface: Self.interface,
            member: member,
            arguments: arguments, timeoutMilliseconds: 10_000)
    }

    @Test(
        "a call answered later: others are served meanwhile, and it gets the later answer (values or error)",
        arguments: [false, true])
    func later(fail: Bool) throws {
        let address = bus.address
        let result = Mutex<Result<[DBusValue], MethodError>?>(nil)
        let waiter = Thread {
            do {
                let client = try Connection(address: address)
                let answer = Result { () throws(MethodError) in try Self.call(client, "Wait") }
                result.withLock { $0 = answer }
            } catch {
                result.withLock { $0 = .failure(MethodError(.failed, "cannot connect: \(error)")) }
            }
        }
        waiter.start()
        let client = try Connection(address: bus.address)
        // The loop goes on serving while Wait, which has reached it, is unanswered.
        #expect(
            waitUntil(timeout: 10) { (try? Self.call(client, "Waiting")) == [.uint32(1)] },
            "Wait never reached the service")
        #expect(try Self.call(client, "Plain") == [.uint32(1)])
        #expect(result.withLock { $0 } == nil, "Wait was answered before Release")
        _ = try Self.call(client, "Release", [.boolean(fail)])
        #expect(waitUntil(timeout: 10) { result.withLock { $0 } != nil })
        switch result.withLock({ $0 }) {
        case .success(let values)?: #expect(!fail && values == [.uint32(7)], "\(values)")
        case .failure(let error)?: #expect(fail && error.name == Self.nope, "\(error)")
        case nil: Issue.record("no answer")
        }
    }

    @Test("answered before the handler returned; asked and then thrown: the error")
    func earlyAnswers() throws {
        let client = try Connection(address: bus.address)
        #expect(
            try Self.call(client, "AtOnce") == [.uint32(3)],
            "the later answer, not the handler's return value")
        let thrown = methodError { () throws(MethodError) in _ = try Self.call(client, "Throws") }
        #expect(thrown?.name == Self.nope && thrown?.message == "thrown")
        #expect(try Self.call(client, "Plain") == [.uint32(1)], "the next call is answered as usual")
    }
}
