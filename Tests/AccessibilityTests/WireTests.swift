import Foundation
import Testing
import DBusKit
import TestSupport

/// The slider's wire format, checked with the project's own client on the accessibility bus:
/// the exact shapes libatspi reads without checking them (a wrong one is dropped or misread silently).
@Suite("Accessible slider on the wire")
struct WireTests {
    let fixture: SliderFixture
    let a11y: Connection
    let app: String

    init() throws {
        fixture = try SliderFixture()
        a11y = try Connection(address: fixture.stack.address)
        let children = try a11y.call(
            destination: "org.a11y.atspi.Registry",
            path: ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!,
            interface: "org.a11y.atspi.Accessible", member: "GetChildren", timeoutMilliseconds: 5000)
        let refs = children.first?.asArray?.compactMap { $0.asStructure?.first?.asString } ?? []
        guard refs.count == 1, let name = refs.first else {
            throw TestFailure("expected one application, got \(children)")
        }
        app = name
    }

    static let root = ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!
    static let slider = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!
    static let frame = ObjectPath(rawValue: "/org/a11y/atspi/accessible/frame")!

    func call(_ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [])
        throws(MethodError) -> [DBusValue]
    {
        try a11y.call(
            destination: app, path: path, interface: interface, member: member, arguments: arguments,
            timeoutMilliseconds: 5000)
    }

    func property(_ path: ObjectPath, _ interface: String, _ name: String) throws(MethodError)
        -> DBusValue?
    {
        try call(path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)])
            .first?.asVariant
    }

    @Test("GetState is exactly two uint32 words, FOCUSED added only after Focus()")
    func states() throws {
        let words: (UInt32, UInt32) -> [DBusValue] = {
            [.array(elementSignature: "u", [.uint32($0), .uint32($1)])]
        }
        #expect(try call(Self.slider, "org.a11y.atspi.Accessible", "GetState") == words(0x4300_4900, 0))
        // The frame: ENABLED, SENSITIVE, SHOWING, VISIBLE; ACTIVE only while the slider is focused.
        #expect(try call(Self.frame, "org.a11y.atspi.Accessible", "GetState") == words(0x4300_0100, 0))
        try fixture.client.selector("Focus")
        #expect(try call(Self.slider, "org.a11y.atspi.Accessible", "GetState") == words(0x4300_5900, 0))
        #expect(try call(Self.frame, "org.a11y.atspi.Accessible", "GetState") == words(0x4300_0102, 0))
    }

    @Test("references use the unique name; parents, children and application are consistent")
    func references() throws {
        #expect(app.hasPrefix(":"))
        let sliderRef = DBusValue.structure([.string(app), .objectPath(Self.slider)])
        let frameRef = DBusValue.structure([.string(app), .objectPath(Self.frame)])
        let rootRef = DBusValue.structure([.string(app), .objectPath(Self.root)])
        let statusRef = DBusValue.structure([
            .string(app), .objectPath(ObjectPath(rawValue: "/org/a11y/atspi/accessible/status")!)
        ])
        #expect(
            try call(Self.root, "org.a11y.atspi.Accessible", "GetChildren")
                == [.array(elementSignature: "(so)", [frameRef, statusRef])],
            "the frame first, then the status bar")
        #expect(
            try call(Self.root, "org.a11y.atspi.Accessible", "GetChildAtIndex", [.int32(0)]) == [
                frameRef
            ])
        #expect(
            try call(Self.frame, "org.a11y.atspi.Accessible", "GetChildren") == [
                .array(elementSignature: "(so)", [sliderRef])
            ])
        #expect(try call(Self.frame, "org.a11y.atspi.Accessible", "GetRole") == [.uint32(23)])
        #expect(try property(Self.frame, "org.a11y.atspi.Accessible", "Parent") == rootRef)
        #expect(try call(Self.frame, "org.a11y.atspi.Accessible", "GetIndexInParent") == [.int32(0)])
        #expect(
            try call(Self.frame, "org.a11y.atspi.Accessible", "GetInterfaces") == [
                .stringArray(["org.a11y.atspi.Accessible"])
            ],
            "no Component: nothing for a magnifier to follow")
        #expect(try property(Self.slider, "org.a11y.atspi.Accessible", "Parent") == frameRef)
        #expect(try call(Self.slider, "org.a11y.atspi.Accessible", "GetApplication") == [rootRef])
        #expect(try call(Self.slider, "org.a11y.atspi.Accessible", "GetIndexInParent") == [.int32(0)])
        let desktop = try property(Self.root, "org.a11y.atspi.Accessible", "Parent")?.asStructure
        #expect(
            desktop?.last == .objectPath(Self.root) && desktop?.first?.asString?.hasPrefix(":") == true,
            "the root's parent is the registry's desktop from the Embed reply: \(String(describing: desktop))"
        )
        var outOfRange: MethodError?
        do { _ = try call(Self.root, "org.a11y.atspi.Accessible", "GetChildAtIndex", [.int32(2)]) } catch
        { outOfRange = error }
        #expect(outOfRange?.name == .invalidArgs)
        #expect(
            try call(Self.slider, "org.a11y.atspi.Accessible", "GetInterfaces")
                == [
                    .stringArray([
                        "org.a11y.atspi.Accessible", "org.a11y.atspi.Action", "org.a11y.atspi.Component",
                        "org.a11y.atspi.Value"
                    ])
                ])
        #expect(
            try call(Self.root, "org.a11y.atspi.Accessible", "GetInterfaces")
                == [.stringArray(["org.a11y.atspi.Accessible", "org.a11y.atspi.Application"])])
    }

    @Test(
        "application root: role, Application properties, Id read/write, bus address, empty cache of the exact type"
    )
    func application() throws {
        #expect(try call(Self.root, "org.a11y.atspi.Accessible", "GetRole") == [.uint32(75)])
        #expect(try property(Self.root, "org.a11y.atspi.Accessible", "Name") == .string("snapsize"))
        #expect(
            try property(Self.root, "org.a11y.atspi.Application", "ToolkitName") == .string("snapsize"))
        #expect(try property(Self.root, "org.a11y.atspi.Application", "AtspiVersion") == .string("2.1"))
        #expect(try property(Self.root, "org.a11y.atspi.Application", "Version") == .string("0.1.0"))
        _ = try call(
            Self.root, "org.freedesktop.DBus.Properties", "Set",
            [.string("org.a11y.atspi.Application"), .string("Id"), .variant(.int32(42))])
        #expect(try property(Self.root, "org.a11y.atspi.Application", "Id") == .int32(42))
        #expect(
            try call(Self.root, "org.a11y.atspi.Application", "GetApplicationBusAddress") == [
                .string("")
            ])
        let items = try call(
            ObjectPath(rawValue: "/org/a11y/atspi/cache")!, "org.a11y.atspi.Cache", "GetItems")
        #expect(items == [.array(elementSignature: "((so)(so)(so)iiassusau)", [])])
        #expect(signature(of: items) == "a((so)(so)(so)iiassusau)")
    }

    @Test("every call is answered: a refused write replies normally, a mistyped one with InvalidArgs")
    func writes() throws {
        try fixture.client.selector("Preview", [.double(330)])
        let set = [DBusValue.string("org.a11y.atspi.Value"), .string("CurrentValue")]
        #expect(
            try call(Self.slider, "org.freedesktop.DBus.Properties", "Set", set + [.variant(.double(0))])
                == [])
        #expect(
            try property(Self.slider, "org.a11y.atspi.Value", "CurrentValue") == .double(4),
            "preview still shown")
        #expect(try fixture.client.selectorProperty("SelectedIndex") == .uint32(2), "nothing committed")
        try fixture.client.selector("Cancel")
        var mistyped: MethodError?
        do {
            _ = try call(
                Self.slider, "org.freedesktop.DBus.Properties", "Set", set + [.variant(.int32(1))])
        } catch { mistyped = error }
        #expect(mistyped?.name == .invalidArgs)
        #expect(
            try call(
                Self.slider, "org.freedesktop.DBus.Properties", "Set", set + [.variant(.double(.nan))])
                == [],
            "NaN is refused by the core but still answered")
        #expect(try property(Self.slider, "org.a11y.atspi.Value", "CurrentValue") == .double(2))
        #expect(
            try call(Self.slider, "org.a11y.atspi.Action", "DoAction", [.int32(9)]) == [.boolean(false)])
        // No place on any screen (a magnifier that follows focus stays where it is); a size all the same.
        for coordinates: UInt32 in [0, 1, 2] {
            var placed: MethodError?
            do {
                _ = try call(
                    Self.slider, "org.a11y.atspi.Component", "GetExtents", [.uint32(coordinates)])
            } catch { placed = error }
            #expect(placed?.name == .failed, "GetExtents(\(coordinates))")
        }
        #expect(
            try call(Self.slider, "org.a11y.atspi.Component", "GetSize") == [.int32(336), .int32(40)])
        #expect(try call(Self.slider, "org.a11y.atspi.Component", "GrabFocus") == [.boolean(true)])
        #expect(
            try call(Self.slider, "org.a11y.atspi.Accessible", "GetAttributes")
                == [.stringStringDict(["valuetext": "60 points", "size": "60", "committed-size": "60"])])
    }
}
