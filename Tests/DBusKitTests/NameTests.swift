import Testing
import DBusKit

@Suite("Validated names")
struct NameTests {
    @Test("valid object paths", arguments: ["/", "/a", "/org/example/Test1", "/a_b/C9"])
    func validPath(_ text: String) { #expect(ObjectPath(rawValue: text)?.rawValue == text) }

    @Test("invalid object paths", arguments: ["", "a", "/a/", "//", "/a//b", "/a-b", "/é", "/a\u{0}b"])
    func invalidPath(_ text: String) { #expect(ObjectPath(rawValue: text) == nil) }

    @Test("valid bus names", arguments: [":1.42", "org.example.Test", "a.b", "org.example._x-y"])
    func validBusName(_ text: String) { #expect(BusName(rawValue: text) != nil) }

    @Test(
        "invalid bus names", arguments: ["", "org", ".a.b", "a..b", "1a.b", "org.example.Test.", "a b.c"]
    )
    func invalidBusName(_ text: String) { #expect(BusName(rawValue: text) == nil) }

    @Test("valid interface names", arguments: ["org.freedesktop.DBus.Properties", "a.b", "a_1.B2"])
    func validInterface(_ text: String) { #expect(InterfaceName(rawValue: text) != nil) }

    @Test("invalid interface names", arguments: ["", "org", ":1.2", "a.1b", "a-b.c", "a.b."])
    func invalidInterface(_ text: String) { #expect(InterfaceName(rawValue: text) == nil) }

    @Test("invalid error names", arguments: ["", "Failed", "org..x", "org.x-y.Z"])
    func invalidErrorName(_ text: String) { #expect(ErrorName(rawValue: text) == nil) }

    @Test("standard error names")
    func standardErrors() {
        let expected: [(ErrorName, String)] = [
            (.failed, "org.freedesktop.DBus.Error.Failed"),
            (.invalidArgs, "org.freedesktop.DBus.Error.InvalidArgs"),
            (.unknownMethod, "org.freedesktop.DBus.Error.UnknownMethod"),
            (.unknownObject, "org.freedesktop.DBus.Error.UnknownObject"),
            (.unknownInterface, "org.freedesktop.DBus.Error.UnknownInterface"),
            (.unknownProperty, "org.freedesktop.DBus.Error.UnknownProperty"),
            (.propertyReadOnly, "org.freedesktop.DBus.Error.PropertyReadOnly"),
            (.noReply, "org.freedesktop.DBus.Error.NoReply"),
            (.serviceUnknown, "org.freedesktop.DBus.Error.ServiceUnknown"),
            (.nameHasNoOwner, "org.freedesktop.DBus.Error.NameHasNoOwner"),
            (.timeout, "org.freedesktop.DBus.Error.Timeout")
        ]
        for (name, text) in expected {
            #expect(name.rawValue == text)
            #expect(ErrorName(rawValue: text) == name)
        }
    }

    @Test("path helpers")
    func pathHelpers() {
        let base = ObjectPath(rawValue: "/org/a11y")!
        #expect(base.appending("atspi")?.rawValue == "/org/a11y/atspi")
        #expect(ObjectPath.root.appending("x")?.rawValue == "/x")
        #expect(base.appending("bad-element") == nil)
        #expect(ObjectPath(rawValue: "/org/a11y/atspi")!.isDescendant(of: base))
        #expect(!ObjectPath(rawValue: "/org/a11yx")!.isDescendant(of: base))
    }
}
