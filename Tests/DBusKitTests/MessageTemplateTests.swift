import Testing
import TestSupport
@testable import DBusKit

/// Signals and replies are built once and copied (MessageTemplates): a copy must be the message
/// that would have been built, addressed to whoever is being answered.
@Suite("Messages built once, copied per send")
struct MessageTemplateTests {
    /// Writes the key of the signal Tick with `body`.
    private func tickKey(_ body: [DBusValue]) -> (MessageTemplates.KeyWriter) -> Void {
        { $0.writeSignal(path: "/a", interface: "org.example.Test1", member: "Tick", body: body) }
    }

    private func key(_ body: [DBusValue]) -> MessageTemplates.Key { written(tickKey(body)) }

    private func written(_ write: (MessageTemplates.KeyWriter) -> Void) -> MessageTemplates.Key {
        let writer = MessageTemplates.KeyWriter()
        write(writer)
        return writer.key
    }

    @Test("keys are equal only when the bytes on the wire would be")
    func identity() {
        #expect(key([.double(0.0)]) != key([.double(-0.0)]), "0.0 and -0.0 differ on the wire")
        #expect(key([.double(.nan)]) == key([.double(.nan)]), "the same NaN is the same message")
        #expect(key([.variant(.double(0.0))]) != key([.variant(.double(-0.0))]))
        #expect(
            key([.array(elementSignature: "{sv}", [.dictEntry(.string("a"), .variant(.uint32(1)))])])
                == key([
                    .array(elementSignature: "{sv}", [.dictEntry(.string("a"), .variant(.uint32(1)))])
                ]))
        #expect(key([.string("ab")]) != key([.string("ba")]), "same length, other text")
        #expect(key([.string("\u{E9}")]) != key([.string("e\u{301}")]), "canonically equal, other bytes")
        #expect(key([.variant(.string("\u{E9}"))]) != key([.variant(.string("e\u{301}"))]))
        #expect(key([.uint32(1)]) != key([.int32(1)]))
        #expect(key([]) != written { $0.writeMethodReturn(body: [], destination: nil) })
        let reply = { (body: [DBusValue], to: String?) in
            written { writer in
                guard let to else { return writer.writeMethodReturn(body: body, destination: nil) }
                to.withCString { writer.writeMethodReturn(body: body, destination: $0) }
            }
        }
        #expect(reply([.uint32(1)], ":1.5") == reply([.uint32(1)], ":1.5"))
        #expect(reply([.uint32(1)], ":1.5") != reply([.uint32(1)], ":1.6"), "another caller")
        #expect(reply([.uint32(1)], ":1.5") != reply([.uint32(1)], nil), "addressed or not")
        #expect(reply([.uint32(1)], nil) != reply([.uint32(2)], nil))
        #expect(
            reply([.string("a")], "b") != reply([.string("ab")], ""),
            "the body ends where its count says")
        #expect(
            key([.array(elementSignature: "u", [.uint32(1)]), .array(elementSignature: "u", [])])
                != key([.array(elementSignature: "u", []), .array(elementSignature: "u", [.uint32(1)])]))
        #expect(
            key([.structure([.string("a"), .string("b")])])
                != key([.structure([.string("ab"), .string("")])]))
    }

    @Test("a member that only looks like a kept one is validated, not copied")
    func lookalikeMember() throws {
        let bus = try startBus()
        let client = try Connection(address: bus.address)
        try client.emitSignal(path: .root, interface: TestService.interface, member: "Kick", as: .event)
        let error = methodError { () throws(MethodError) in
            try client.emitSignal(
                path: .root, interface: TestService.interface, member: "\u{212A}ick", as: .event)  // KELVIN SIGN
        }
        #expect(error?.name == .invalidArgs)
    }

    @Test("the set stays bounded")
    func bounded() throws {
        var templates = MessageTemplates()
        for n in 0..<(MessageTemplates.capacity * 3) {
            _ = try templates.message(keyedBy: tickKey([.uint32(UInt32(n))])) { () throws(MethodError) in
                try Message.signal(path: .root, interface: TestService.interface, member: "Tick")
            }
            #expect(templates.count <= MessageTemplates.capacity)
        }
    }

    @Test("every kept template is found again by its own key, and only by it")
    func lookup() throws {
        var templates = MessageTemplates()
        func tick(_ n: Int) throws(MethodError) -> Message {
            let message = try Message.signal(
                path: .root, interface: TestService.interface, member: "Tick")
            try message.append([.uint32(UInt32(n))])
            return message
        }
        for n in 0..<MessageTemplates.capacity {
            _ = try templates.message(keyedBy: tickKey([.uint32(UInt32(n))])) { () throws(MethodError) in
                try tick(n)
            }
        }
        #expect(templates.count == MessageTemplates.capacity)
        for n in (0..<MessageTemplates.capacity).reversed() {
            var built = false
            let copy = try templates.message(keyedBy: tickKey([.uint32(UInt32(n))])) {
                () throws(MethodError) in
                built = true
                return try tick(-1)
            }
            #expect(!built, "template \(n) was kept")
            #expect(try copy.arguments() == [.uint32(UInt32(n))])
        }
        // Written in place: a key written again for another message finds that one, not the last.
        let first = try templates.message(keyedBy: {
            $0.writeSignal(
                path: "/a", interface: "org.example.Test1", member: "Tick",
                body: [.uint32(3)])
        }) { () throws(MethodError) in try tick(-1) }
        #expect(try first.arguments() == [.uint32(3)])
        let second = try templates.message(keyedBy: {
            $0.writeMethodReturn(body: [.uint32(3)], destination: nil)
        }) { () throws(MethodError) in try tick(99) }
        #expect(
            try second.arguments() == [.uint32(99)],
            "a method return is not the signal with the same body")
        // Keys longer than the writer's first buffer: it grows, and they still match byte for byte.
        let long = String(repeating: "x", count: 3000)
        #expect(key([.string(long)]) == key([.string(long)]))
        #expect(key([.string(long)]) != key([.string(long.dropLast() + "y")]))
        for text in [long, long + "y", long] {
            let copy = try templates.message(keyedBy: {
                $0.writeSignal(
                    path: "/a", interface: "org.example.Test1", member: "Tick",
                    body: [.string(text)])
            }) { () throws(MethodError) in
                let message = try Message.signal(
                    path: .root, interface: TestService.interface, member: "Tick")
                try message.append([.string(text)])
                return message
            }
            #expect(try copy.arguments() == [.string(text)])
        }
    }

    @Test("a malformed body is refused every time, never kept")
    func malformed() {
        let bus = try? startBus()
        guard let bus, let client = try? Connection(address: bus.address) else {
            Issue.record("no private bus")
            return
        }
        for _ in 0..<2 {
            let error = methodError { () throws(MethodError) in
                try client.emitSignal(
                    path: .root, interface: TestService.interface, member: "Tick",
                    arguments: [.array(elementSignature: "u", [.string("x")])], as: .event)
            }
            #expect(error?.name == .invalidArgs)
        }
        #expect(client.templates.count == 0)
    }

    @Test("PropertiesChanged never shares a template with a signal whose body looks like its key")
    func propertiesChangedKeyIsItsOwn() throws {
        let bus = try startBus()
        let client = try Connection(address: bus.address)
        let interface = TestService.interface
        try client.emitPropertiesChanged(
            path: TestService.path, interface: interface, changed: [], invalidated: ["Size"])
        try client.emitSignal(
            path: TestService.path, interface: .properties, member: "PropertiesChanged",
            arguments: [.string(interface.rawValue), .uint32(0), .string("Size")], as: .state)
        #expect(client.templates.count == 2)
    }

    @Test("repeated signals arrive in order, each exactly as sent")
    func repeatedSignals() throws {
        let bus = try startBus()
        let address = bus.address
        let seen = Recorder<UInt64>()
        let listener = try LoopThread { loop in
            let connection = try Connection(address: address)
            connection.addMatch("type='signal',interface='org.example.Test1'")
            connection.onSignal(interface: "org.example.Test1", member: "Tick") { signal in
                if case .double(let value)? = signal.arguments.first { seen.append(value.bitPattern) }
            }
            _ = try connection.call(
                destination: "org.freedesktop.DBus",
                path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                interface: "org.freedesktop.DBus", member: "GetId")
            loop.add(connection)
        }
        let emitter = try Connection(address: bus.address)
        let sent: [Double] = [0.0, -0.0, 0.0, 2.0, 2.0, -0.0]
        for value in sent {
            try emitter.emitSignal(
                path: TestService.path, interface: TestService.interface, member: "Tick",
                arguments: [.double(value)], as: .state)
        }
        emitter.flush()
        #expect(waitUntil(timeout: 5) { seen.items.count == sent.count })
        #expect(seen.items == sent.map(\.bitPattern))
        #expect(emitter.templates.count == 3)
        listener.stop()
    }

    @Test("a reply kept per caller answers that caller, each at its own call")
    func repliesReachTheirCaller() throws {
        let bus = try startBus()
        let address = bus.address
        let service = try LoopThread { loop in try TestService.start(on: loop, address: address) }
        let first = try Connection(address: bus.address)
        let second = try Connection(address: bus.address)
        // The bus routes a reply by its destination and the caller takes it by its reply serial: a
        // reply addressed to the other caller, or carrying an earlier call's serial, never arrives.
        for round in 0..<3 {
            for client in [first, second, second, first] {
                let answer = try client.call(
                    destination: TestService.busName.rawValue, path: TestService.path,
                    interface: TestService.interface.rawValue, member: "Echo",
                    arguments: [.string("same")], timeoutMilliseconds: 5000)
                #expect(answer == [.string("same")], "round \(round)")
            }
        }
        service.stop()
    }
}
