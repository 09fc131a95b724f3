import CGtk
import DBusKit

/// A GVariant (what GDBus hands over) as the contract's `DBusValue`, so that the panel reads replies,
/// GetAll and PropertiesChanged with SizeSelectorContract's own decoders instead of a second copy.
/// Every D-Bus type is covered; a handle or maybe type (GVariant-only, never on this interface) comes
/// out as an empty structure, which no decoder accepts.
enum GVariantValue {
    static func value(_ variant: OpaquePointer) -> DBusValue {
        let type = String(cString: g_variant_get_type_string(variant))
        switch type.first {
        case "y": return .byte(g_variant_get_byte(variant))
        case "b": return .boolean(g_variant_get_boolean(variant) != 0)
        case "n": return .int16(g_variant_get_int16(variant))
        case "q": return .uint16(g_variant_get_uint16(variant))
        case "i": return .int32(g_variant_get_int32(variant))
        case "u": return .uint32(g_variant_get_uint32(variant))
        case "x": return .int64(Int64(g_variant_get_int64(variant)))
        case "t": return .uint64(UInt64(g_variant_get_uint64(variant)))
        case "d": return .double(g_variant_get_double(variant))
        case "s": return .string(string(variant))
        case "o":
            let text = string(variant)
            return ObjectPath(rawValue: text).map { .objectPath($0) } ?? .string(text)
        case "g": return .signature(string(variant))
        case "v":
            let inner = g_variant_get_variant(variant)!
            defer { g_variant_unref(inner) }
            return .variant(value(inner))
        case "a": return .array(elementSignature: String(type.dropFirst()), children(variant))
        case "(": return .structure(children(variant))
        case "{":
            let members = children(variant)
            guard members.count == 2 else { return .structure([]) }
            return .dictEntry(members[0], members[1])
        default: return .structure([])
        }
    }

    /// The members of a reply or signal body (a tuple), as DBusKit hands a body over.
    static func body(_ tuple: OpaquePointer?) -> [DBusValue] {
        guard let tuple else { return [] }
        if case .structure(let members) = value(tuple) { return members }
        return []
    }

    private static func string(_ variant: OpaquePointer) -> String {
        String(cString: g_variant_get_string(variant, nil))
    }

    private static func children(_ variant: OpaquePointer) -> [DBusValue] {
        (0..<g_variant_n_children(variant)).map { index in
            let child = g_variant_get_child_value(variant, index)!
            defer { g_variant_unref(child) }
            return value(child)
        }
    }
}
