import Foundation
import Testing
@_spi(Testing) import DBusKit
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
            connection.addMatch(
                "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
            connection.onSignal(
                interface: InterfaceName.properties.rawValue, member: "PropertiesChanged",
                path: TestService.path
            ) { received.append($0) }
            // A round trip after AddMatch guarantees the rule is active before the test goes on.
            _ = try connection.call(
                destination: "org.freedesktop.DBus",
                path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                interface: "org.freedesktop.DBus", member: "GetId")
            loop.add(connection)
        }
        let client = try Connection(address: bus.address)
        _ = try client.call(
            destination: TestService.busName.rawValue, path: TestService.path,
            interface: InterfaceName.properties.rawValue, member: "Set",
            arguments: [
                .string(TestService.interface.rawValue), .string("Label"), .variant(.string("x"))
            ])
        #expect(waitUntil(timeout: 5) { !received.items.isEmpty })
        let signal = try #require(received.items.first)
        #expect(
            signal.arguments == [
                .string(TestService.interface.rawValue),
                .stringDict(["Label": .string("x")]), .stringArray([])
            ])
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
                try connection.callAsync(
                    destination: TestService.busName.rawValue, path: TestService.path,
                    interface: TestService.interface.rawValue, member: "Echo",
                    arguments: [.string(text)], timeoutMilliseconds: 5000
                ) { replies.append($0) }
            }
            try connection.callAsync(
                destination: TestService.busName.rawValue, path: TestService.path,
                interface: TestService.interface.rawValue, member: "Fail"
            ) { replies.append($0) }
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
        let caller = try LoopThread { loop in
            let connection = try Connection(address: address)
            loop.add(connection)
            try connection.callAsync(
                destination: "org.example.Silent", path: .root, interface: "org.example.X",
                member: "Hang", timeoutMilliseconds: 300
            ) { replies.append($0) }
        }
        // When it times out is ClockTests' business (on a manual clock); here: that it does, on the real one.
        #expect(waitUntil(timeout: 10) { !replies.items.isEmpty })
        let result = try #require(replies.items.first)
        #expect(throws: MethodError.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.name == .noReply) }
        #expect(replies.items.count == 1)
        caller.stop()
    }

    @Test("timers fire on the monotonic clock, in deadline order; cancelled ones never")
    func timers() throws {
        // Exact deadlines are ClockTests' business (on a manual clock); here: the real clock drives them.
        let fired = Recorder<String>()
        let loop = try LoopThread { loop in
            loop.schedule(after: 0.1) { fired.append("late") }
            loop.schedule(after: 0.02) { fired.append("early") }
            let cancelled = loop.schedule(after: 0.05) { fired.append("cancelled") }
            loop.cancel(cancelled)
            // Fires after the cancelled one's deadline, so "cancelled" would come before it.
            loop.schedule(after: 0.15) { fired.append("last") }
        }
        #expect(waitUntil(timeout: 10) { fired.items.count >= 3 })
        #expect(fired.items == ["early", "late", "last"])
        loop.stop()
    }

    @Test("timers due in the same round fire in deadline order; one an earlier one cancels never fires")
    func dueTogether() throws {
        let fired = Recorder<String>()
        let loop = try LoopThread { loop in
            loop.schedule(after: 0.003) { fired.append("third") }
            let second = TimerHolder()
            loop.schedule(after: 0.001) {
                fired.append("first")
                if let timer = second.value { loop.cancel(timer) }
            }
            second.value = loop.schedule(after: 0.002) { fired.append("second") }
            loop.schedule(after: 0.0025) { fired.append("between") }
            // All of them are due when the loop first looks.
            usleep(50_000)
        }
        #expect(waitUntil(timeout: 10) { fired.items.count >= 3 })
        usleep(20_000)
        #expect(fired.items == ["first", "between", "third"])
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
        // Each `sync` wakes the loop once; in between, an idle loop sleeps in poll however long the
        // pause (which only gives a loop that wakes on its own the time to show it).
        let before = try service.sync { $0.wakeUps }
        Thread.sleep(forTimeInterval: 0.5)
        let after = try service.sync { $0.wakeUps }
        #expect(after - before == 1, "the idle loop woke up \(after - before - 1) times on its own")
        service.stop()
    }

    @Test(
        "while a client waits for a held reply the loop polls without sleeping for heldReplyPollSeconds at most, then sleeps"
    )
    func heldReplyPolling() throws {
        let bus = try startBus()
        let address = bus.address
        let held = Recorder<String>()
        let service = try LoopThread { loop in
            let connection = try Connection(address: address)
            try connection.export(
                path: .root,
                interfaces: [
                    InterfaceTable(
                        "org.example.Held",
                        methods: [
                            // Holds the caller's replies for good: nothing here lets them go.
                            Method("Hold", outputs: [Argument("value", "u")]) {
                                [unowned connection] call throws(MethodError) in
                                connection.holdReplies(to: call.sender)
                                held.append(call.sender)
                                return [.uint32(1)]
                            }
                        ])
                ])
            _ = try connection.requestName(BusName(rawValue: "org.example.Held")!)
            loop.add(connection)
        }
        let client = try Connection(address: address)
        try client.callAsync(
            destination: "org.example.Held", path: .root, interface: "org.example.Held", member: "Hold"
        ) { _ in }
        #expect(client.flush())
        #expect(waitUntil(timeout: 10) { held.items.count == 1 })
        // The window is a fraction of a millisecond (a few hundred rounds at most); a loop that went
        // on polling without sleeping would count tens of thousands of rounds in half a second.
        let before = try service.sync { $0.wakeUps }
        Thread.sleep(forTimeInterval: 0.5)
        let after = try service.sync { $0.wakeUps }
        #expect(
            after - before < 2000,
            "\(after - before) rounds in 0.5 s with a reply held (window \(EventLoop.heldReplyPollSeconds) s)")
        service.stop()
    }

    @Test("killing the bus calls onDisconnect and the loop does not spin")
    func busKilled() throws {
        let bus = try startBus()
        let address = bus.address
        let disconnects = Recorder<Date>()
        let service = try LoopThread { loop in
            let connection = try TestService.start(on: loop, address: address)
            connection.onDisconnect = { disconnects.append(Date()) }
        }
        #expect(try service.sync { $0.connections.count } == 1)
        bus.kill()
        #expect(
            waitUntil(timeout: 10) { !disconnects.items.isEmpty },
            "onDisconnect did not fire within 10 s")
        // A dead socket left in the poll set would make poll return at once, round after round.
        let before = try service.sync { $0.wakeUps }
        Thread.sleep(forTimeInterval: 0.5)
        let after = try service.sync { $0.wakeUps }
        #expect(
            after - before == 1, "the loop woke up \(after - before - 1) times on its own after the kill"
        )
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
            _ = try client.call(
                destination: "org.freedesktop.DBus",
                path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                interface: "org.freedesktop.DBus", member: "GetId", timeoutMilliseconds: 2000)
        }
        #expect(error != nil)
    }
}

@Suite("Signals, fds and connection set-up")
struct MoreLoopTests {
    @Test("emitted signals reach onSignal handlers; cancelled ones stay quiet")
    func signals() throws {
        let bus = try startBus()
        let address = bus.address
        let kept = Recorder<SignalMessage>()
        let dropped = Recorder<SignalMessage>()
        let listener = try LoopThread { loop in
            let connection = try Connection(address: address)
            connection.addMatch("type='signal',interface='org.example.Test1'")
            connection.onSignal(interface: "org.example.Test1", member: "Tick") { kept.append($0) }
            let token = connection.onSignal(interface: "org.example.Test1", member: nil) {
                dropped.append($0)
            }
            connection.cancel(token)
            connection.onSignal(interface: "org.example.Test1", member: "Tock") { _ in
                Issue.record("wrong member")
            }
            _ = try connection.call(
                destination: "org.freedesktop.DBus",
                path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                interface: "org.freedesktop.DBus", member: "GetId")
            loop.add(connection)
        }
        let emitter = try Connection(address: bus.address)
        try emitter.emitSignal(
            path: TestService.path, interface: TestService.interface, member: "Tick",
            arguments: [.uint32(7)], as: .event)
        // Nothing is sent for an empty change set.
        try emitter.emitPropertiesChanged(
            path: TestService.path, interface: TestService.interface, changed: [])
        emitter.flush()
        #expect(waitUntil(timeout: 5) { !kept.items.isEmpty })
        #expect(kept.items.first?.arguments == [.uint32(7)])
        #expect(kept.items.first?.sender == emitter.uniqueName)
        #expect(dropped.items.isEmpty)
        listener.stop()
    }

    @Test("malformed arguments are rejected before sending")
    func malformedArguments() throws {
        let bus = try startBus()
        let client = try Connection(address: bus.address)
        let error = methodError { () throws(MethodError) in
            try client.emitSignal(
                path: .root, interface: TestService.interface, member: "Tick",
                arguments: [.array(elementSignature: "u", [.string("x")])], as: .event)
        }
        #expect(error?.name == .invalidArgs)
        let badMember = methodError { () throws(MethodError) in
            try client.emitSignal(
                path: .root, interface: TestService.interface, member: "not a member", as: .event)
        }
        #expect(badMember?.name == .invalidArgs)
    }

    @Test("connecting to a missing bus throws libdbus's error")
    func noServer() {
        let error = methodError { () throws(MethodError) in
            _ = try Connection(address: "unix:path=/nonexistent/ss-bus")
        }
        #expect(error?.name.rawValue.hasPrefix("org.freedesktop.DBus.Error.") == true)
        let bad = methodError { () throws(MethodError) in _ = try Connection(address: "nonsense") }
        #expect(bad != nil)
    }

    @Test("file-descriptor watches fire when readable")
    func fileWatch() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let readFD = fds[0]
        let writeFD = fds[1]
        defer { close(readFD); close(writeFD) }
        let seen = Recorder<UInt8>()
        let loop = try LoopThread { loop in
            loop.watchFileDescriptor(readFD) {
                var byte: UInt8 = 0
                if read(readFD, &byte, 1) == 1 { seen.append(byte) }
            }
        }
        var byte: UInt8 = 42
        #expect(write(writeFD, &byte, 1) == 1)
        #expect(waitUntil(timeout: 3) { seen.items == [42] })
        loop.stop()
    }

    @Test("a generated config activates services from the given directory")
    func activationDirectory() throws {
        let services = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: services) }
        let marker = services + "/activated.env"
        try """
        [D-BUS Service]
        Name=org.example.Activated
        Exec=/bin/sh -c 'env > \(marker); exit 3'

        """.write(toFile: services + "/org.example.Activated.service", atomically: true, encoding: .utf8)
        let bus = try PrivateSessionBus(serviceDirectories: [services])
        let client = try Connection(address: bus.address)
        // The helper records its environment and fails, so the call fails at once, but it was started.
        let error = methodError { () throws(MethodError) in
            _ = try client.call(
                destination: "org.example.Activated", path: .root, interface: "org.example.X",
                member: "Y", timeoutMilliseconds: 5000)
        }
        #expect(
            error?.name.rawValue == "org.freedesktop.DBus.Error.Spawn.ChildExited",
            "\(String(describing: error))")
        #expect(waitUntil(timeout: 5) { FileManager.default.fileExists(atPath: marker) })
        let environment = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        #expect(
            environment.contains("DBUS_SESSION_BUS_ADDRESS=\(bus.address)")
                || environment.contains("DBUS_STARTER_ADDRESS="),
            "\(environment)")
    }
}

/// A timer's ID, set on the loop's thread after the action that reads it was scheduled.
private final class TimerHolder: @unchecked Sendable {
    var value: TimerID?
}
