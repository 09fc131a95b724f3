import DBusKit

/// org.a11y.atspi.Application on the root.
enum ApplicationInterface {
    static let name = "org.a11y.atspi.Application"

    static func table(for app: AccessibleApplication) -> InterfaceTable {
        InterfaceTable(
            name,
            methods: [
                Method(
                    "GetLocale", inputs: [Argument("lctype", "u")], outputs: [Argument("locale", "s")]
                ) { _ throws(MethodError) in
                    [.string(AccessibleInterface.currentLocale())]
                },
                // libatspi 2.46 asks every new application. A non-empty answer would make it open a
                // peer-to-peer connection there and send everything through it; "" keeps the bus.
                Method("GetApplicationBusAddress", outputs: [Argument("address", "s")]) {
                    _ throws(MethodError) in
                    [.string("")]
                }
            ],
            properties: [
                Property("ToolkitName", signature: "s", emitsChange: .const) { [unowned app] in
                    .string(app.info.toolkitName)
                },
                // 2.46 clients read Version; newer ones ToolkitVersion. Serve both.
                Property("Version", signature: "s", emitsChange: .const) { [unowned app] in
                    .string(app.info.version)
                },
                Property("ToolkitVersion", signature: "s", emitsChange: .const) { [unowned app] in
                    .string(app.info.version)
                },
                Property("AtspiVersion", signature: "s", emitsChange: .const) { .string("2.1") },
                // The registry writes it while handling our Embed (without waiting for the reply).
                Property(
                    "Id", signature: "i", access: .readWrite, emitsChange: .false,
                    get: { [unowned app] in .int32(app.id) },
                    set: { [unowned app] value, _ throws(MethodError) in app.id = value.asInt32 ?? app.id
                    })
            ])
    }
}
