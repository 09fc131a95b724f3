import DBusKit

/// org.a11y.atspi.Cache at /org/a11y/atspi/cache.
///
/// libatspi calls GetItems once per new application and parses the reply WITHOUT checking its
/// signature, so the empty array must still carry the exact element type. Empty is valid: clients
/// then ask each object directly.
enum CacheInterface {
    static let name = "org.a11y.atspi.Cache"
    static let itemSignature = "((so)(so)(so)iiassusau)"

    static var table: InterfaceTable {
        InterfaceTable(
            name,
            methods: [
                Method("GetItems", outputs: [Argument("nodes", "a" + itemSignature)]) {
                    _ throws(MethodError) in
                    [.array(elementSignature: itemSignature, [])]
                }
            ],
            signals: [
                SignalSpec("AddAccessible", arguments: [Argument("nodeAdded", itemSignature)]),
                SignalSpec("RemoveAccessible", arguments: [Argument("nodeRemoved", "(so)")])
            ])
    }
}
