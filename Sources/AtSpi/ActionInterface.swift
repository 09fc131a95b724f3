import DBusKit

/// org.a11y.atspi.Action: "increment" and "decrement", for clients that cannot write a value
/// (Orca's action list, dogtail's doActionNamed).
enum ActionInterface {
    static let name = "org.a11y.atspi.Action"

    struct Action {
        var name: String
        var localizedName: String
        var description: String
        var steps: Int
    }

    /// Index 0 and 1 are part of the contract; do not reorder.
    static let actions = [
        Action(name: "increment", localizedName: "Larger", description: "Selects the next larger value", steps: 1),
        Action(name: "decrement", localizedName: "Smaller", description: "Selects the next smaller value", steps: -1),
    ]

    static func table(for source: SliderSource) -> InterfaceTable {
        InterfaceTable(name, methods: [
            Method("GetName", inputs: [Argument("index", "i")], outputs: [Argument("name", "s")]) { call throws(MethodError) in
                [.string(try action(call).name)]
            },
            Method("GetLocalizedName", inputs: [Argument("index", "i")], outputs: [Argument("name", "s")]) { call throws(MethodError) in
                [.string(try action(call).localizedName)]
            },
            Method("GetDescription", inputs: [Argument("index", "i")], outputs: [Argument("description", "s")]) { call throws(MethodError) in
                [.string(try action(call).description)]
            },
            Method("GetKeyBinding", inputs: [Argument("index", "i")], outputs: [Argument("binding", "s")]) { call throws(MethodError) in
                _ = try action(call)
                return [.string("")]
            },
            Method("GetActions", outputs: [Argument("actions", "a(sss)")]) { _ throws(MethodError) in
                [.array(elementSignature: "(sss)", actions.map {
                    .structure([.string($0.localizedName), .string($0.description), .string("")])
                })]
            },
            // False when the step was refused (a preview is open) or the value is already at that end.
            Method("DoAction", inputs: [Argument("index", "i")], outputs: [Argument("success", "b")]) {
                [unowned source] call throws(MethodError) in
                let index = Int(try call.int32(0))
                guard actions.indices.contains(index) else { return [.boolean(false)] }
                return [.boolean(source.step(by: actions[index].steps))]
            },
        ], properties: [
            Property("NActions", signature: "i", emitsChange: .const) { .int32(Int32(actions.count)) },
        ])
    }

    private static func action(_ call: MethodCall) throws(MethodError) -> Action {
        let index = Int(try call.int32(0))
        guard actions.indices.contains(index) else {
            throw MethodError(.invalidArgs, "No action \(index); there are \(actions.count)")
        }
        return actions[index]
    }
}
