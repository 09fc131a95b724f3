internal import SystemCalls

/// The standard interfaces every exported object gets, built from the object's own tables.
enum StandardInterfaces {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// Descriptions only (no handlers run from these): what Introspect lists for every object.
    static var introspectionTables: [InterfaceTable] {
        [
            InterfaceTable(
                InterfaceName.peer.rawValue,
                methods: [
                    Method("Ping") { _ throws(MethodError) in [] },
                    Method("GetMachineId", outputs: [Argument("machine_uuid", "s")]) {
                        _ throws(MethodError) in []
                    }
                ]),
            InterfaceTable(
                InterfaceName.introspectable.rawValue,
                methods: [
                    Method("Introspect", outputs: [Argument("xml_data", "s")]) { _ throws(MethodError) in
                        []
                    }
                ]),
            properties(PropertiesProvider(tables: []))
        ]
    }

    /// `org.freedesktop.DBus.Properties` over `provider`'s tables.
    static func properties(_ provider: PropertiesProvider) -> InterfaceTable {
        InterfaceTable(
            InterfaceName.properties.rawValue,
            methods: [
                Method(
                    "Get", inputs: [Argument("interface_name", "s"), Argument("property_name", "s")],
                    outputs: [Argument("value", "v")]
                ) { call throws(MethodError) in
                    [.variant(try provider.get(interface: call.string(0), name: call.string(1)))]
                },
                Method(
                    "GetAll", inputs: [Argument("interface_name", "s")],
                    outputs: [Argument("properties", "a{sv}")]
                ) { call throws(MethodError) in
                    [try provider.getAll(interface: call.string(0))]
                },
                Method(
                    "Set",
                    inputs: [
                        Argument("interface_name", "s"), Argument("property_name", "s"),
                        Argument("value", "v")
                    ]
                ) { call throws(MethodError) in
                    try provider.set(
                        interface: call.string(0), name: call.string(1), value: call.variant(2),
                        sender: call.sender)
                    return []
                }
            ],
            signals: [
                SignalSpec(
                    "PropertiesChanged",
                    arguments: [
                        Argument("interface_name", "s"),
                        Argument("changed_properties", "a{sv}"),
                        Argument("invalidated_properties", "as")
                    ])
            ])
    }
}

extension InterfaceTable {
    /// A complete introspection document (DOCTYPE, `<node>`) for an object with `tables`.
    ///
    /// Needs no bus, so tests can diff it against a checked-in XML file. `children` become `<node name=…/>` entries.
    public static func introspectionDocument(
        tables: [InterfaceTable], children: [String] = [],
        includeStandardInterfaces: Bool = true
    ) -> String {
        var xml = StandardInterfaces.doctype + "<node>\n"
        let all = (includeStandardInterfaces ? StandardInterfaces.introspectionTables : []) + tables
        for table in all {
            xml += table.introspectionXML(indent: 2)
        }
        for child in children {
            xml += "  <node name=\"\(xmlEscape(child))\"/>\n"
        }
        return xml + "</node>\n"
    }
}

/// Get/GetAll/Set semantics over a set of interface tables.
///
/// Set does not emit PropertiesChanged by itself: the owner of the state knows whether the value
/// actually changed, and emits after mutating (the systemd pattern).
struct PropertiesProvider {
    var tables: [InterfaceTable]

    func get(interface: String, name: String) throws(MethodError) -> DBusValue {
        let property = try find(interface: interface, name: name)
        return try checkedValue(property, interface: interface)
    }

    /// An empty interface name means "all interfaces of the object" (D-Bus specification).
    func getAll(interface: String) throws(MethodError) -> DBusValue {
        let selected: [InterfaceTable]
        if interface.isEmpty {
            selected = tables
        } else {
            selected = [try table(interface)]
        }
        var entries: [DBusValue] = []
        for table in selected {
            for property in table.properties {
                entries.append(
                    .dictEntry(
                        .string(property.name),
                        .variant(try checkedValue(property, interface: table.name))))
            }
        }
        return .array(elementSignature: "{sv}", entries)
    }

    func set(interface: String, name: String, value: DBusValue, sender: String) throws(MethodError) {
        let property = try find(interface: interface, name: name)
        guard property.isWritable, let setter = property.set else {
            throw MethodError(
                .propertyReadOnly, "Property '\(name)' of interface '\(interface)' is read-only")
        }
        guard value.signature == property.signature else {
            throw MethodError(
                .invalidArgs,
                "Property '\(name)' has type \"\(property.signature)\" but got \"\(value.signature)\"")
        }
        try setter(value, sender)
    }

    private func table(_ interface: String) throws(MethodError) -> InterfaceTable {
        guard let table = tables.first(where: { $0.name == interface }) else {
            throw MethodError(.unknownInterface, "No such interface '\(interface)'")
        }
        return table
    }

    private func find(interface: String, name: String) throws(MethodError) -> Property {
        guard let property = try table(interface).property(named: name) else {
            throw MethodError(.unknownProperty, "No such property '\(name)' on interface '\(interface)'")
        }
        return property
    }

    /// A getter returning the wrong type is a program bug: Failed on the wire, a line on stderr.
    private func checkedValue(_ property: Property, interface: String) throws(MethodError) -> DBusValue {
        let value = property.get()
        guard value.signature == property.signature else {
            writeDiagnostic(
                "DBusKit: getter of \(interface).\(property.name) returned \"\(value.signature)\" but declares \"\(property.signature)\""
            )
            throw MethodError(.failed, "Internal error: property \(property.name) has the wrong type")
        }
        return value
    }
}
