import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// The org.snapsize.SizeSelector1 contract through a real dbus-daemon, with dbus-send, gdbus and
/// the project's own client.
@Suite("SizeSelector1 methods and properties")
struct InterfaceTests {
    @Test("Introspect returns the checked-in interface, member by member")
    func introspection() throws {
        let fixture = try DaemonFixture()
        let reply = try fixture.client().call(
            "Introspect", interface: "org.freedesktop.DBus.Introspectable")
        let live = interfaceShape(reply.first?.asString ?? "", interface: interfaceName)
        let file = try String(
            contentsOfFile: repositoryRoot + "/dbus/org.snapsize.SizeSelector1.xml", encoding: .utf8)
        let truth = interfaceShape(file, interface: interfaceName)
        #expect(truth.count > 40, "the checked-in XML lost its members: \(truth)")
        #expect(live == truth)
        for (index, line) in truth.enumerated() where index < live.count && live[index] != line {
            Issue.record("first difference at \(index): daemon \(live[index]) vs file \(line)")
            break
        }
        // Every property announces its changes: the list, track and layout change on a reload (SIGHUP).
        #expect(!live.contains { $0.contains("EmitsChangedSignal") }, "\(live)")
        let xml = reply.first?.asString ?? ""
        for standard in [
            "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable",
            "org.freedesktop.DBus.Peer"
        ] {
            #expect(xml.contains("<interface name=\"\(standard)\""), "Introspect lacks \(standard)")
        }
    }

    @Test("steps with dbus-send: up to the top, then atLimit with nothing changed")
    func incrementAtTop() throws {
        let fixture = try DaemonFixture(["--initial", "80"])
        let first = try fixture.dbusSend("Increment")
        #expect(first.status == 0)
        #expect(
            first.stdout.contains("uint32 4") && first.stdout.contains("int32 100")
                && first.stdout.contains("boolean false"))
        let again = try fixture.dbusSend("Increment")
        #expect(
            again.stdout.contains("uint32 4") && again.stdout.contains("int32 100")
                && again.stdout.contains("boolean true"))
        let down = try fixture.dbusSend("Decrement")
        #expect(
            down.stdout.contains("uint32 3") && down.stdout.contains("int32 80")
                && down.stdout.contains("boolean false"))
    }

    @Test(
        "every method with gdbus",
        arguments: [
            (["StepBy", "-- -7"], "(uint32 0, 20, true)"),
            (["StepBy", "1"], "(uint32 3, 80, false)"),
            (["SetIndex", "4"], "(uint32 4, 100)"),
            (["SetSize", "57"], "(uint32 2, 60)"),
            (["SetSize", "-- -999"], "(uint32 0, 20)"),
            (["Commit", "51.0"], "(uint32 1, 40)"),
            (["Preview", "324.0"], "(uint32 4, 100)"),
            (["Cancel"], "()"),
            (["Increment"], "(uint32 3, 80, false)"),
            (["Decrement"], "(uint32 1, 40, false)")
        ])
    func gdbus(words: [String], expected: String) throws {
        let fixture = try DaemonFixture()
        var arguments = [words[0]]
        for word in words.dropFirst() { arguments += word.split(separator: " ").map(String.init) }
        let result = try fixture.tool(
            "gdbus",
            [
                "call", "--session", "--dest", busName, "--object-path", objectPath.rawValue,
                "--method", "\(interfaceName).\(arguments[0])"
            ] + arguments.dropFirst())
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    }

    @Test("GetAll and Get with gdbus and dbus-send")
    func properties() throws {
        let fixture = try DaemonFixture([
            "--sizes", "20,30,60,100", "--layout", "numeric", "--initial", "30",
            "--label", "Brush size", "--unit", "px", "--track-width", "200", "--track-inset", "10"
        ])
        let all = try fixture.gdbusCall("org.freedesktop.DBus.Properties.GetAll", interfaceName)
        #expect(all.status == 0)
        #expect(all.stdout.contains("'Sizes': <[20, 30, 60, 100]>"))
        #expect(all.stdout.contains("'SelectedIndex': <uint32 1>"))
        #expect(all.stdout.contains("'SelectedSize': <30>"))
        #expect(all.stdout.contains("'ShownIndex': <uint32 1>"))
        #expect(all.stdout.contains("'ShownSize': <30>"))
        #expect(all.stdout.contains("'Previewing': <false>"))
        #expect(all.stdout.contains("'ValueText': <'30 px'>"))
        #expect(all.stdout.contains("'ValueTexts': <['20 px', '30 px', '60 px', '100 px']>"))
        #expect(all.stdout.contains("'Label': <'Brush size'>"))
        #expect(all.stdout.contains("'TrackWidth': <200.0>"))
        #expect(all.stdout.contains("'TrackInset': <10.0>"))
        #expect(all.stdout.contains("'Layout': <'numeric'>"))
        let one = try fixture.dbusSend(
            "org.freedesktop.DBus.Properties.Get", "string:\(interfaceName)", "string:ValueText")
        #expect(one.stdout.contains("variant       string \"30 px\""))
        let busctl = try fixture.tool(
            "busctl",
            ["--user", "get-property", busName, objectPath.rawValue, interfaceName, "SelectedSize"])
        #expect(
            busctl.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "i 30",
            "busctl: \(busctl.stderr)")
    }

    @Test(
        "every refusal has its name",
        arguments: [
            (["SetIndex", "uint32:5"], ErrorName.outOfRange.rawValue),
            (["SetIndex", "string:two"], "org.freedesktop.DBus.Error.InvalidArgs"),
            (["Increment", "int32:1"], "org.freedesktop.DBus.Error.InvalidArgs"),
            (["Preview", "double:nan"], "org.freedesktop.DBus.Error.InvalidArgs"),
            (["Commit", "double:inf"], "org.freedesktop.DBus.Error.InvalidArgs"),
            (["Preview", "double:-inf"], "org.freedesktop.DBus.Error.InvalidArgs"),
            (["Bogus"], "org.freedesktop.DBus.Error.UnknownMethod"),
            (["org.snapsize.Nope.Increment"], "org.freedesktop.DBus.Error.UnknownInterface"),
            (["Focus"], ErrorName.noAccessibility.rawValue),
            (
                [
                    "org.freedesktop.DBus.Properties.Get", "string:org.snapsize.SizeSelector1",
                    "string:Colour"
                ],
                "org.freedesktop.DBus.Error.UnknownProperty"
            ),
            (
                [
                    "org.freedesktop.DBus.Properties.Set", "string:org.snapsize.SizeSelector1",
                    "string:SelectedIndex", "variant:uint32:1"
                ],
                "org.freedesktop.DBus.Error.PropertyReadOnly"
            )
        ])
    func errors(words: [String], name: String) throws {
        let fixture = try DaemonFixture()
        let member = words[0].contains(".") ? words[0] : "\(interfaceName).\(words[0])"
        let result = try fixture.tool(
            "dbus-send",
            ["--session", "--print-reply", "--dest=\(busName)", objectPath.rawValue, member]
                + words.dropFirst())
        #expect(result.status != 0)
        #expect(result.stderr.contains("Error \(name):"), "stderr: \(result.stderr)")
        // A refused call changes nothing.
        #expect(try fixture.client().property("SelectedIndex") == .uint32(2))
    }

    @Test("an unknown object path is UnknownObject, and Peer.Ping answers")
    func unknownObjectAndPeer() throws {
        let fixture = try DaemonFixture()
        let wrong = try fixture.tool(
            "dbus-send",
            [
                "--session", "--print-reply", "--dest=\(busName)", "/org/snapsize/Nope",
                "\(interfaceName).Increment"
            ])
        #expect(
            wrong.stderr.contains("org.freedesktop.DBus.Error.UnknownObject"), "stderr: \(wrong.stderr)")
        let ping = try fixture.dbusSend("org.freedesktop.DBus.Peer.Ping")
        #expect(ping.status == 0)
    }
}
