import Testing
import DBusKit
import TestSupport

/// PropertiesChanged emitted by property name: the values come from the exported table's getters.
@Suite("PropertiesChanged by name")
struct PropertiesChangedTests {
    final class Counter { var value: UInt32 = 5 }

    static func table(_ counter: Counter) -> InterfaceTable {
        InterfaceTable(
            TestService.interface.rawValue,
            properties: [
                Property("Count", signature: "u", get: { .uint32(counter.value) }),
                Property("Text", signature: "s", emitsChange: .invalidates, get: { .string("long") }),
                Property("Version", signature: "s", emitsChange: .const, get: { .string("1.0") }),
                Property("Broken", signature: "u", get: { .string("not a u") })
            ])
    }

    @Test(
        "values are read through the getters; invalidates lists the name; misuse throws and sends nothing"
    )
    func byName() throws {
        let bus = try startBus()
        let address = bus.address
        let received = Recorder<SignalMessage>()
        let listener = try LoopThread { loop in
            let connection = try Connection(address: address)
            connection.addMatch("type='signal',interface='org.freedesktop.DBus.Properties'")
            connection.onSignal(
                interface: InterfaceName.properties.rawValue, member: "PropertiesChanged"
            ) { received.append($0) }
            _ = try connection.nameHasOwner(BusName.bus.rawValue)  // the match is in place after this
            loop.add(connection)
        }
        let emitter = try Connection(address: bus.address)
        let counter = Counter()
        try emitter.export(path: TestService.path, interfaces: [Self.table(counter)])
        let interface = TestService.interface

        try emitter.emitPropertiesChanged(
            path: TestService.path, interface: interface, names: ["Count", "Text"])
        counter.value = 6
        try emitter.emitPropertiesChanged(path: TestService.path, interface: interface, names: ["Count"])
        func refusal(_ path: ObjectPath, _ name: String) -> ErrorName? {
            methodError { () throws(MethodError) in
                try emitter.emitPropertiesChanged(path: path, interface: interface, names: [name])
            }?.name
        }
        #expect(refusal(TestService.path, "Version") == .invalidArgs)
        #expect(refusal(TestService.path, "Nope") == .unknownProperty)
        #expect(refusal(TestService.path, "Broken") == .failed)
        #expect(refusal(TestService.childPath, "Count") == .unknownInterface)
        // Nothing for no names; a last marker shows that nothing else was sent before it.
        try emitter.emitPropertiesChanged(path: TestService.path, interface: interface, names: [])
        try emitter.emitPropertiesChanged(
            path: TestService.path, interface: interface, changed: [], invalidated: ["End"])
        emitter.flush()

        #expect(waitUntil(timeout: 10) { received.items.count >= 3 })
        let bodies = received.items.map(\.arguments)
        let entry = { (value: UInt32) in
            DBusValue.array(
                elementSignature: "{sv}", [.dictEntry(.string("Count"), .variant(.uint32(value)))])
        }
        #expect(
            bodies == [
                [.string(interface.rawValue), entry(5), .stringArray(["Text"])],
                [.string(interface.rawValue), entry(6), .stringArray([])],
                [
                    .string(interface.rawValue), .array(elementSignature: "{sv}", []),
                    .stringArray(["End"])
                ]
            ])
        listener.stop()
    }

    @Test("a path exported again, or no longer, is looked up afresh")
    func exportsChange() throws {
        let bus = try startBus()
        let emitter = try Connection(address: bus.address)
        let interface = TestService.interface
        func refusal(_ name: String) -> ErrorName? {
            methodError { () throws(MethodError) in
                try emitter.emitPropertiesChanged(
                    path: TestService.path, interface: interface, names: [name])
            }?.name
        }
        try emitter.export(path: TestService.path, interfaces: [Self.table(Counter())])
        #expect(refusal("Count") == nil)
        try emitter.export(
            path: TestService.path,
            interfaces: [
                InterfaceTable(
                    interface.rawValue,
                    properties: [
                        Property("Other", signature: "u", get: { .uint32(1) })
                    ])
            ])
        #expect(refusal("Count") == .unknownProperty)
        #expect(refusal("Other") == nil)
        emitter.unexport(path: TestService.path)
        #expect(refusal("Other") == .unknownInterface)
    }
}
