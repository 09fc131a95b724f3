import DBusKit
import SystemCalls

/// AT-SPI events: broadcast signals from the SOURCE object's path, body `(siiva{sv})`, the only
/// signature (besides a legacy one) libatspi accepts; anything else is dropped with a warning.
/// A failed send is logged, never thrown: the change already happened.
enum ObjectEvents {
    static let object = InterfaceName(rawValue: "org.a11y.atspi.Event.Object")!

    /// `object:property-change:<property>`; the detail must be exactly e.g. "accessible-value",
    /// because clients' match rules filter on arg0.
    static func propertyChange(
        on connection: Connection, path: ObjectPath, property: String, value: DBusValue
    ) {
        emit(connection, path, member: "PropertyChange", detail: property, detail1: 0, data: value)
    }

    /// `object:property-change:accessible-value`. libatspi ignores a double in any_data and
    /// re-reads CurrentValue, so the new value is sent for other clients' benefit.
    static func valueChanged(on connection: Connection, path: ObjectPath, value: Double) {
        propertyChange(on: connection, path: path, property: "accessible-value", value: .double(value))
    }

    /// `object:state-changed:<state>` with detail1 1 or 0.
    static func stateChanged(on connection: Connection, path: ObjectPath, state: String, on: Bool) {
        emit(
            connection, path, member: "StateChanged", detail: state, detail1: on ? 1 : 0, data: .int32(0)
        )
    }

    /// `object:announcement` (Orca 45+); detail1 1 = polite.
    static func announcement(on connection: Connection, path: ObjectPath, text: String) {
        emit(connection, path, member: "Announcement", detail: "", detail1: 1, data: .string(text))
    }

    private static func emit(
        _ connection: Connection, _ path: ObjectPath, member: String, detail: String,
        detail1: Int32, data: DBusValue
    ) {
        do {
            // Each event states what is true now (this value, name or text; focused or showing or
            // not), so while the bus is not reading only the latest per source, kind and detail is
            // kept (bounded memory): an announcement of a value the slider has left would mislead.
            try connection.emitSignal(
                path: path, interface: object, member: member,
                arguments: [
                    .string(detail), .int32(detail1), .int32(0), .variant(data),
                    .array(elementSignature: "{sv}", [])
                ], as: .state)
        } catch {
            writeDiagnostic("could not send the \(member) \(detail) event: \(error)")
        }
    }
}
