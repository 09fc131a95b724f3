import DBusKit

/// org.a11y.atspi.Action: "increment" and "decrement", for clients that cannot write a value
/// (Orca's action list, dogtail's doActionNamed).
enum ActionInterface {
    static let name = "org.a11y.atspi.Action"

    /// Index 0 and 1 are part of the contract; do not reorder. The names are not words and never
    /// change (as GTK keeps them); the words come from the source, in its language.
    static let actions: [(name: String, steps: Int)] = [("increment", 1), ("decrement", -1)]

    struct Action {
        var name: String
        var localizedName: String
        var description: String
        var steps: Int
    }

    static func action(_ index: Int, of source: SliderSource) -> Action {
        let words = actions[index].steps > 0 ? source.largerAction : source.smallerAction
        return Action(
            name: actions[index].name, localizedName: words.name, description: words.description,
            steps: actions[index].steps)
    }

    static func table(for source: SliderSource) -> InterfaceTable {
        InterfaceTable(
            name,
            methods: [
                Method("GetName", inputs: [Argument("index", "i")], outputs: [Argument("name", "s")]) {
                    [unowned source] call throws(MethodError) in
                    [.string(try action(call, source).name)]
                },
                Method(
                    "GetLocalizedName", inputs: [Argument("index", "i")],
                    outputs: [Argument("name", "s")]
                ) {
                    [unowned source] call throws(MethodError) in
                    [.string(try action(call, source).localizedName)]
                },
                Method(
                    "GetDescription", inputs: [Argument("index", "i")],
                    outputs: [Argument("description", "s")]
                ) {
                    [unowned source] call throws(MethodError) in
                    [.string(try action(call, source).description)]
                },
                Method(
                    "GetKeyBinding", inputs: [Argument("index", "i")],
                    outputs: [Argument("binding", "s")]
                ) {
                    [unowned source] call throws(MethodError) in
                    _ = try action(call, source)
                    return [.string("")]
                },
                Method("GetActions", outputs: [Argument("actions", "a(sss)")]) {
                    [unowned source] _ throws(MethodError) in
                    [
                        .array(
                            elementSignature: "(sss)",
                            actions.indices.map { action($0, of: source) }.map {
                                .structure([
                                    .string($0.localizedName), .string($0.description), .string("")
                                ])
                            })
                    ]
                },
                // False when the step was refused (a preview is open), the value is already at that end,
                // or the step could not be saved (undone at the end of its group).
                Method(
                    "DoAction", inputs: [Argument("index", "i")], outputs: [Argument("success", "b")],
                    undoneReply: [.boolean(false)]
                ) {
                    [unowned source] call throws(MethodError) in
                    let index = Int(try call.int32(0))
                    guard actions.indices.contains(index) else { return [.boolean(false)] }
                    return [.boolean(source.step(by: actions[index].steps, sender: call.sender))]
                }
            ],
            properties: [
                Property("NActions", signature: "i", emitsChange: .const) {
                    .int32(Int32(actions.count))
                }
            ])
    }

    private static func action(_ call: MethodCall, _ source: SliderSource) throws(MethodError) -> Action
    {
        let index = Int(try call.int32(0))
        guard actions.indices.contains(index) else {
            throw MethodError(.invalidArgs, "No action \(index); there are \(actions.count)")
        }
        return action(index, of: source)
    }
}
