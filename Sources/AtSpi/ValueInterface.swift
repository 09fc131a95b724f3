import DBusKit

/// org.a11y.atspi.Value over the slider's source. The value is the shown INDEX (a deliberate
/// design choice: sizes need not be evenly spaced, indices are), so MinimumIncrement is 1.
public enum ValueInterface {
    public static let name = "org.a11y.atspi.Value"

    static func table(for source: SliderSource) -> InterfaceTable {
        InterfaceTable(
            name,
            properties: [
                Property("MinimumValue", signature: "d", emitsChange: .const) { [unowned source] in
                    .double(source.minimumIndexValue)
                },
                // The last index: a reload with a new list changes it (clients hear a value-changed event).
                Property("MaximumValue", signature: "d", emitsChange: .false) { [unowned source] in
                    .double(source.maximumIndexValue)
                },
                // Orca derives the decimals it speaks from this; 1 means whole numbers.
                Property("MinimumIncrement", signature: "d", emitsChange: .const) { .double(1) },
                // Written by pyatspi/dogtail/libatspi as Properties.Set(v(d)). A refused write (NaN, an
                // open preview, a size that cannot be saved) still answers normally, deliberately: libatspi
                // 2.46 (Debian 12; Orca, pyatspi, dogtail) unrefs the NULL reply of an error and aborts its
                // own process (atspi_value_set_current_value; seen here: pyatspi exits with SIGABRT,
                // "arguments to dbus_message_unref() were incorrect"). Clients read the value back; the
                // refusal is logged (rate-limited) by the source.
                Property(
                    "CurrentValue", signature: "d", access: .readWrite, emitsChange: .false,
                    get: { [unowned source] in .double(source.indexValue) },
                    set: { [unowned source] value, sender throws(MethodError) in
                        _ = source.setIndexValue(value.asDouble ?? .nan, by: sender)
                    }),
                Property("Text", signature: "s", emitsChange: .false) { [unowned source] in
                    .string(source.valueText)
                }
            ])
    }
}
