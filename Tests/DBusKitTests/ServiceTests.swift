import Foundation
import Testing
@testable import DBusKit
import TestSupport

/// The exported test service, called with the project's own blocking client on a private bus.
@Suite("Exported objects on a private bus")
struct ServiceTests {
    let bus: PrivateSessionBus
    let service: LoopThread
    let client: Connection

    init() throws {
        bus = try startBus()
        let address = bus.address
        service = try LoopThread { loop in try TestService.start(on: loop, address: address) }
        client = try Connection(address: bus.address)
    }

    private func call(
        _ member: String, _ arguments: [DBusValue] = [],
        interface: String? = TestService.interface.rawValue,
        path: ObjectPath = TestService.path
    ) throws(MethodError) -> [DBusValue] {
        try client.call(
            destination: TestService.busName.rawValue, path: path, interface: interface, member: member,
            arguments: arguments, timeoutMilliseconds: 5000)
    }

    private func properties(
        _ member: String, _ arguments: [DBusValue], path: ObjectPath = TestService.path
    )
        throws(MethodError) -> [DBusValue]
    {
        try call(member, arguments, interface: InterfaceName.properties.rawValue, path: path)
    }

    @Test("methods run and reply with their outputs")
    func methods() throws {
        #expect(try call("Increment") == [.uint32(1)])
        #expect(try call("Increment") == [.uint32(2)])
        #expect(try call("Echo", [.string("héllo wörld")]) == [.string("héllo wörld")])
        #expect(try call("Add", [.int32(40), .int32(2)]) == [.int32(42)])
        #expect(
            try call("Increment", interface: nil) == [.uint32(3)], "no interface: found by member name")
        #expect(!client.uniqueName.isEmpty)
    }

    @Test("a wrong signature is InvalidArgs before the handler runs")
    func wrongSignature() throws {
        let error = methodError { () throws(MethodError) in _ = try call("Increment", [.double(1)]) }
        #expect(error?.name == .invalidArgs)
        #expect(error?.message == "Method Increment expects signature \"\" but got \"d\"")
        #expect(try call("Increment") == [.uint32(1)], "the rejected call did not run the handler")
    }

    @Test("standard error names for unknown things")
    func unknowns() {
        let unknownMethod = methodError { () throws(MethodError) in _ = try call("Bogus") }
        #expect(unknownMethod?.name == .unknownMethod)
        let unknownInterface = methodError { () throws(MethodError) in
            _ = try call("Echo", interface: "org.example.Nope1")
        }
        #expect(unknownInterface?.name == .unknownInterface)
        let unknownObject = methodError { () throws(MethodError) in
            _ = try call("Increment", path: ObjectPath(rawValue: "/org/example/Nowhere")!)
        }
        #expect(unknownObject?.name == .unknownObject)
        let unknownProperty = methodError { () throws(MethodError) in
            _ = try properties("Get", [.string(TestService.interface.rawValue), .string("Nope")])
        }
        #expect(unknownProperty?.name == .unknownProperty)
        let readOnly = methodError { () throws(MethodError) in
            _ = try properties(
                "Set", [.string(TestService.interface.rawValue), .string("Count"), .variant(.uint32(9))])
        }
        #expect(readOnly?.name == .propertyReadOnly)
        let wrongType = methodError { () throws(MethodError) in
            _ = try properties(
                "Set", [.string(TestService.interface.rawValue), .string("Label"), .variant(.uint32(9))])
        }
        #expect(wrongType?.name == .invalidArgs)
        let propertiesOfUnknownInterface = methodError { () throws(MethodError) in
            _ = try properties("GetAll", [.string("org.example.Nope1")])
        }
        #expect(propertiesOfUnknownInterface?.name == .unknownInterface)
    }

    @Test("handler errors keep their name; a bad reply becomes Failed")
    func handlerErrors() {
        let custom = methodError { () throws(MethodError) in _ = try call("Fail") }
        #expect(custom == MethodError(TestService.nopeError, "nope"))
        let bad = methodError { () throws(MethodError) in _ = try call("BadReply") }
        #expect(bad?.name == .failed)
        let setterError = methodError { () throws(MethodError) in
            _ = try properties(
                "Set", [.string(TestService.interface.rawValue), .string("Label"), .variant(.string(""))]
            )
        }
        #expect(setterError?.name == .invalidArgs)
    }

    @Test("Properties Get, GetAll and Set")
    func propertyAccess() throws {
        let iface = DBusValue.string(TestService.interface.rawValue)
        #expect(try properties("Get", [iface, .string("Version")]) == [.variant(.string("1.0"))])
        _ = try call("Increment")
        let all = try properties("GetAll", [iface]).first?.asStringDict
        #expect(all == ["Count": .uint32(1), "Label": .string("initial"), "Version": .string("1.0")])
        #expect(try properties("Set", [iface, .string("Label"), .variant(.string("new"))]) == [])
        #expect(try properties("Get", [iface, .string("Label")]) == [.variant(.string("new"))])
        let everything = try properties("GetAll", [.string("")]).first?.asStringDict
        #expect(everything?["Label"] == .string("new"))
    }

    @Test("Peer is answered by libdbus")
    func peer() throws {
        #expect(try call("Ping", interface: InterfaceName.peer.rawValue) == [])
        let machine = try call("GetMachineId", interface: InterfaceName.peer.rawValue)
        #expect(machine.first?.asString?.count == 32)
    }

    @Test("Introspect lists tables, standard interfaces and children")
    func introspect() throws {
        let xml =
            try call("Introspect", interface: InterfaceName.introspectable.rawValue).first?.asString
            ?? ""
        #expect(
            xml.hasPrefix(
                "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\""))
        for needle in [
            "<interface name=\"org.example.Test1\">",
            "<interface name=\"org.freedesktop.DBus.Properties\">",
            "<interface name=\"org.freedesktop.DBus.Introspectable\">",
            "<interface name=\"org.freedesktop.DBus.Peer\">", "<method name=\"Increment\">",
            "<signal name=\"Tick\">", "<node name=\"child\"/>"
        ] {
            #expect(xml.contains(needle), "missing \(needle)")
        }
        let parent =
            try call(
                "Introspect", interface: InterfaceName.introspectable.rawValue,
                path: ObjectPath(rawValue: "/org/example")!
            ).first?.asString ?? ""
        #expect(parent.contains("<node name=\"Test\"/>"))
        #expect(parent.contains("<node name=\"Tree\"/>"))
        #expect(!parent.contains("<interface"), "nothing is exported at /org/example itself")
    }

    @Test("a subtree answers through its lookup")
    func subtree() throws {
        let node = ObjectPath(rawValue: "/org/example/Tree/node7")!
        let value = try properties("Get", [.string("org.example.Node1"), .string("Path")], path: node)
        #expect(value == [.variant(.objectPath(node))])
        let missing = methodError { () throws(MethodError) in
            _ = try properties(
                "GetAll", [.string("org.example.Node1")],
                path: ObjectPath(rawValue: "/org/example/Tree/other")!)
        }
        #expect(missing?.name == .unknownObject)
    }

    @Test(
        "calls alternating between objects and interfaces each reach their own (the last path and interface are kept)"
    )
    func alternating() throws {
        let node = ObjectPath(rawValue: "/org/example/Tree/node7")!
        for round in 1...3 {
            #expect(try call("Increment") == [.uint32(UInt32(round))])
            #expect(
                try properties("Get", [.string("org.example.Node1"), .string("Path")], path: node)
                    == [.variant(.objectPath(node))])
            let elsewhere = methodError { () throws(MethodError) in
                _ = try call("Increment", path: ObjectPath(rawValue: "/org/example/Tes")!)
            }
            #expect(elsewhere?.name == .unknownObject, "a prefix of the last path is another path")
        }
        var recent = RecentString()
        for (text, expected) in [
            ("/a", "/a"), ("/a", "/a"), ("/ab", "/ab"), ("/a", "/a"), ("", ""), ("é", "é")
        ] {
            #expect(text.withCString { recent.string($0) } == expected)
        }
    }

    @Test("requestName reports a taken name; releaseName frees it")
    func names() throws {
        #expect(try client.requestName(TestService.busName) == false)
        let mine = BusName(rawValue: "org.example.Client")!
        #expect(try client.requestName(mine) == true)
        #expect(try client.releaseName(mine) == true)
        let error = methodError { () throws(MethodError) in
            _ = try client.call(
                destination: "org.example.NobodyHere", path: .root, interface: "a.b", member: "C")
        }
        #expect(error?.name == .serviceUnknown)
    }
}
