import Foundation
import Testing
import DBusKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Signals, asynchronous calls, timers and bus loss, all driven by `EventLoop`s on their own threads.
@Suite("EventLoop and asynchronous traffic")
struct LoopTests {
    @Test("PropertiesChanged reaches a second connection")
    func propertiesChanged() throws {
        let bus = try startBus()
        let address = bus.address
        let service = try LoopThread { loop in try TestService.start(on: loop, address: address) }
        let received = Recorder<SignalMessage>()
        let listener = try LoopThread { loop in
            let connection = try Connection(address: address)
            connection.addMatch("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
            connection.onSignal(interface: InterfaceName.properties.rawValue, member: "PropertiesChanged",
                                path: TestService.path) { received.append($0) }
            // A round trip after AddMatch guarantees the rule is active before the test goes on.
            _ = try connection.call(destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                                    interface: "org.freedesktop.DBus", member: "GetId")
            loop.add(connection)
        }
        let client = try Connection(address: bus.address)
        _ = try client.call(destination: TestService.busName.rawValue, path: TestService.path,
                            interface: InterfaceName.properties.rawValue, member: "Set",
                            arguments: [.string(TestService.interface.rawValue), .string("Label"), .variant(.string("x"))])
        #expect(waitUntil(timeout: 5) { !received.items.isEmpty })
        let signal = try #require(received.items.first)
        #expect(signal.arguments == [.string(TestService.interface.rawValue),
                                     .stringDict(["Label": .string("x")]), .stringArray([])])
        #expect(signal.path == TestService.path)
        #expect(signal.member == "PropertiesChanged")
        #expect(signal.sender.hasPrefix(":"))
        listener.stop()
        service.stop()
    }

    @Test("an async call's reply arrives on the loop thread")
    func asyncReply() throws {
        let bus = try startBus()
        let address = bus.address
        let service = try LoopThread { loop in try TestService.start(on: loop, address: address) }
        let replies = Recorder<Result<[DBusValue], MethodError>>()
        let caller = try LoopThread { loop in
            let connection = try Connection(address: address)
            loop.add(connection)
            for text in ["one", "two"] {
                try connection.callAsync(destination: TestService.busName.rawValue, path: TestService.path,
                                         interface: TestService.interface.rawValue, member: "Echo",
                                         arguments: [.string(text)], timeoutMilliseconds: 5000) { replies.append($0) }
            }
            try connection.callAsync(destination: TestService.busName.rawValue, path: TestService.path,
                                     interface: TestService.interface.rawValue, member: "Fail") { replies.append($0) }
        }
        #expect(waitUntil(timeout: 5) { replies.items.count == 3 })
        let results = replies.items
        #expect(results.count == 3)
        if results.count == 3 {
            #expect(try results[0].get() == [.string("one")])
            #expect(try results[1].get() == [.string("two")])
            #expect(throws: MethodError(TestService.nopeError, "nope")) { try results[2].get() }
        }
        caller.stop()
        service.stop()
    }

    @Test("an async call to a peer that never answers times out with NoReply")
    func asyncTimeout() throws {
        let bus = try startBus()
        // Owns a name but is never dispatched, so it never answers.
        let silent = try Connection(address: bus.address)
        #expect(try silent.requestName(BusName(rawValue: "org.example.Silent")!))
        let address = bus.address
        let replies = Recorder<Result<[DBusValue], MethodError>>()
        let started = Date()
        let caller = try LoopThread { loop in
            let connection = try Connection(address: address)
            loop.add(connection)
            try connection.callAsync(destination: "org.example.Silent", path: .root, interface: "org.example.X",
                                     member: "Hang", timeoutMilliseconds: 300) { replies.append($0) }
        }
        #expect(waitUntil(timeout: 5) { !replies.items.isEmpty })
        let elapsed = Date().timeIntervalSince(started)
        let result = try #require(replies.items.first)
        #expect(throws: MethodError.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.name == .noReply) }
        #expect(elapsed >= 0.25 && elapsed < 3, "timed out after \(elapsed) s")
        #expect(replies.items.count == 1)
        caller.stop()
    }

    @Test("one-shot timers fire once; cancelled ones never")
    func timers() throws {
        let fired = Recorder<String>()
        let loop = try LoopThread { loop in
            let start = Date()
            loop.schedule(after: 0.1) { fired.append("late \(Date().timeIntervalSince(start))") }
            loop.schedule(after: 0.02) { fired.append("early") }
            let cancelled = loop.schedule(after: 0.05) { fired.append("cancelled") }
            loop.cancel(cancelled)
        }
        #expect(waitUntil(timeout: 3) { fired.items.count >= 2 })
        Thread.sleep(forTimeInterval: 0.1)
        let items = fired.items
        #expect(items.count == 2)
        #expect(items.first == "early")
        let late = items.last.flatMap { Double($0.dropFirst(5)) } ?? 0
        #expect(late >= 0.099, "fired after \(late) s")
        loop.stop()
    }

    @Test("a POSIX signal reaches the loop through the self-pipe")
    func posixSignal() throws {
        let seen = Recorder<Int32>()
        let loop = try LoopThread { loop in loop.onSignal(SIGUSR2) { seen.append(SIGUSR2) } }
        kill(getpid(), SIGUSR2)
        #expect(waitUntil(timeout: 3) { seen.items == [SIGUSR2] })
        loop.stop()
    }

    @Test("an idle loop does not wake up")
    func idle() throws {
        let bus = try startBus()
        let address = bus.address
        let service = try LoopThread { loop in try TestService.start(on: loop, address: address) }
        let before = service.cpuSeconds
        Thread.sleep(forTimeInterval: 0.5)
        let used = service.cpuSeconds - before
        #expect(before >= 0)
        #expect(used < 0.02, "idle loop thread used \(used) s of CPU")
        service.stop()
    }

    @Test("killing the bus calls onDisconnect within 1 s and the loop does not spin")
    func busKilled() throws {
        let bus = try startBus()
        let address = bus.address
        let disconnects = Recorder<Date>()
        let service = try LoopThread { loop in
            let connection = try TestService.start(on: loop, address: address)
            connection.onDisconnect = { disconnects.append(Date()) }
        }
        #expect(try service.sync { $0.connections.count } == 1)
        let killedAt = Date()
        bus.kill()
        #expect(waitUntil(timeout: 1) { !disconnects.items.isEmpty }, "onDisconnect did not fire within 1 s")
        if let first = disconnects.items.first { #expect(first.timeIntervalSince(killedAt) < 1) }
        let before = service.cpuSeconds
        Thread.sleep(forTimeInterval: 1)
        let used = service.cpuSeconds - before
        #expect(before >= 0)
        #expect(used < 0.1, "loop thread used \(used) s of CPU in the second after the kill")
        #expect(disconnects.items.count == 1)
        #expect(try service.sync { $0.connections.count } == 0, "the dead connection was removed")
        service.stop()
    }

    @Test("a blocking call on a dead bus fails instead of hanging")
    func callAfterKill() throws {
        let bus = try startBus()
        let client = try Connection(address: bus.address)
        bus.kill()
        let error = methodError { () throws(MethodError) in
            _ = try client.call(destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                                interface: "org.freedesktop.DBus", member: "GetId", timeoutMilliseconds: 2000)
        }
        #expect(error != nil)
    }
}
