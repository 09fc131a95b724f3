import Testing
import DBusKit

@Suite("Introspection XML from tables")
struct IntrospectionTests {
    @Test("an interface element lists methods, signals and annotated properties")
    func interfaceXML() {
        let table = InterfaceTable(
            "org.example.Snap1",
            methods: [
                Method("StepUp", outputs: [Argument("index", "u")]) { _ throws(MethodError) in
                    [.uint32(0)]
                },
                Method("Preview", inputs: [Argument("x", "d")]) { _ throws(MethodError) in [] },
                Method("Ping") { _ throws(MethodError) in [] }
            ],
            properties: [
                Property("CommittedIndex", signature: "u", get: { .uint32(0) }),
                Property("Sizes", signature: "au", emitsChange: .const, get: { .arrayOf("u", []) }),
                Property(
                    "Label", signature: "s", access: .readWrite, emitsChange: .invalidates,
                    get: { .string("<&>") }, set: { _, _ throws(MethodError) in })
            ],
            signals: [
                SignalSpec("Committed", arguments: [Argument("index", "u")])
            ])
        let expected = """
              <interface name="org.example.Snap1">
                <method name="StepUp">
                  <arg name="index" type="u" direction="out"/>
                </method>
                <method name="Preview">
                  <arg name="x" type="d" direction="in"/>
                </method>
                <method name="Ping"/>
                <signal name="Committed">
                  <arg name="index" type="u"/>
                </signal>
                <property name="CommittedIndex" type="u" access="read"/>
                <property name="Sizes" type="au" access="read">
                  <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
                </property>
                <property name="Label" type="s" access="readwrite">
                  <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="invalidates"/>
                </property>
              </interface>

            """
        #expect(table.introspectionXML(indent: 2) == expected)
    }

    @Test("names are XML-escaped")
    func escaping() {
        let table = InterfaceTable(
            "a.b",
            methods: [
                Method("M", inputs: [Argument("x<\"&'>", "s")]) { _ throws(MethodError) in [] }
            ])
        #expect(table.introspectionXML(indent: 0).contains("name=\"x&lt;&quot;&amp;&apos;&gt;\""))
    }

    @Test("a whole document needs no bus")
    func document() {
        let xml = InterfaceTable.introspectionDocument(
            tables: [InterfaceTable("org.example.Empty1")], children: ["a", "b"])
        #expect(
            xml.hasPrefix(
                """
                <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
                <node>

                """))
        #expect(
            xml.hasSuffix(
                """
                  <interface name="org.example.Empty1">
                  </interface>
                  <node name="a"/>
                  <node name="b"/>
                </node>

                """))
        for standard in [
            "org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable",
            "org.freedesktop.DBus.Properties"
        ] {
            #expect(xml.contains("<interface name=\"\(standard)\">"))
        }
        #expect(xml.contains("<signal name=\"PropertiesChanged\">"))
        let bare = InterfaceTable.introspectionDocument(tables: [], includeStandardInterfaces: false)
        #expect(!bare.contains("<interface"))
    }
}
