import DBusKit

/// org.a11y.atspi.Value over the slider's source. The value is the shown INDEX (a deliberate
/// design choice: sizes need not be evenly spaced, indices are), so MinimumIncrement is 1.
public enum ValueInterface {
    public static let name = "org.a11y.atspi.Value"

    static func table(for source: SliderSource) -> InterfaceTable {
        InterfaceTable(name, properties: [
            Property("MinimumValue", signature: "d", emitsChange: .const) { [unowned source] in .double(source.minimumIndexValue) },
            Property("MaximumValue", signature: "d", emitsChange: .const) { [unowned source] in .double(source.maximumIndexValue) },
            // Orca derives the decimals it speaks from this; 1 means whole numbers.
            Property("MinimumIncrement", signature: "d", emitsChange: .const) { .double(1) },
            // Written by pyatspi/dogtail/libatspi as Properties.Set(v(d)). libatspi ignores the reply
            // (and mishandles error replies), so a refused write still answers normally; clients
            // read the value back.
            Property("CurrentValue", signature: "d", access: .readWrite, emitsChange: .false,
                     get: { [unowned source] in .double(source.indexValue) },
                     set: { [unowned source] value, _ throws(MethodError) in
                         _ = source.setIndexValue(value.asDouble ?? .nan)
                     }),
            Property("Text", signature: "s", emitsChange: .false) { [unowned source] in .string(source.valueText) },
        ])
    }
}
