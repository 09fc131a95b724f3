/// One D-Bus value of any type, as it is written to or read from a message body.
///
/// Containers carry their element signature explicitly (`array(elementSignature:_:)`) because an
/// empty array still has a type on the wire. Values are checked against the D-Bus type rules
/// before they are written (see `validationProblem`), so a malformed value becomes a thrown
/// `MethodError`, never a libdbus assertion.
///
/// Only the two cases that hold a value directly are `indirect`: a wholly indirect enum boxes every
/// value on the heap, even a `uint32`: an allocation per value written.
public enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    /// A type signature such as `a{sv}` (D-Bus type `g`).
    case signature(String)
    /// An array whose elements all have `elementSignature` (`"u"`, `"(so)"`, `"{sv}"` …).
    case array(elementSignature: String, [DBusValue])
    case structure([DBusValue])
    indirect case variant(DBusValue)
    /// A dictionary entry; only valid as an element of an array (`a{kv}`).
    indirect case dictEntry(DBusValue, DBusValue)
    /// A unix file descriptor (D-Bus type `h`), as received: owned by the `UnixFD`, closed with it.
    /// Never sent (`validationProblem`).
    case unixFD(UnixFD)

    /// The D-Bus type signature of this value, e.g. `u`, `a{sv}`, `(so)`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .variant: "v"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .unixFD: "h"
        }
    }
}

// MARK: - Convenience constructors

extension DBusValue {
    /// An `a{sv}` dictionary (the shape of GetAll and PropertiesChanged), keys sorted for stable output.
    public static func stringDict(_ dict: [String: DBusValue]) -> DBusValue {
        .array(
            elementSignature: "{sv}",
            dict.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// An `a{ss}` dictionary (AT-SPI attributes), keys sorted for stable output.
    public static func stringStringDict(_ dict: [String: String]) -> DBusValue {
        .array(
            elementSignature: "{ss}",
            dict.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .string($0.value)) })
    }

    /// An `as` array.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map { .string($0) })
    }

    /// An array of `element`-typed values, e.g. `.arrayOf("u", [.uint32(1)])`.
    public static func arrayOf(_ elementSignature: String, _ values: [DBusValue]) -> DBusValue {
        .array(elementSignature: elementSignature, values)
    }
}

// MARK: - Typed extractors (nil when the value has another type)

extension DBusValue {
    public var asByte: UInt8? { if case .byte(let v) = self { v } else { nil } }
    public var asBool: Bool? { if case .boolean(let v) = self { v } else { nil } }
    public var asInt16: Int16? { if case .int16(let v) = self { v } else { nil } }
    public var asUInt16: UInt16? { if case .uint16(let v) = self { v } else { nil } }
    public var asInt32: Int32? { if case .int32(let v) = self { v } else { nil } }
    public var asUInt32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    public var asInt64: Int64? { if case .int64(let v) = self { v } else { nil } }
    public var asUInt64: UInt64? { if case .uint64(let v) = self { v } else { nil } }
    public var asDouble: Double? { if case .double(let v) = self { v } else { nil } }
    public var asString: String? { if case .string(let v) = self { v } else { nil } }
    public var asObjectPath: ObjectPath? { if case .objectPath(let v) = self { v } else { nil } }
    public var asSignature: String? { if case .signature(let v) = self { v } else { nil } }
    /// A received file descriptor (keep the `UnixFD` while using its descriptor).
    public var asUnixFD: UnixFD? { if case .unixFD(let v) = self { v } else { nil } }
    /// The content of a variant.
    public var asVariant: DBusValue? { if case .variant(let v) = self { v } else { nil } }
    /// The elements of an array of any element type.
    public var asArray: [DBusValue]? { if case .array(_, let v) = self { v } else { nil } }
    /// The members of a structure.
    public var asStructure: [DBusValue]? { if case .structure(let v) = self { v } else { nil } }
    /// The elements of an `as` array.
    public var asStringArray: [String]? {
        guard case .array("s", let elements) = self else { return nil }
        return elements.compactMap(\.asString)
    }
    /// An `a{sv}` array as a dictionary of the variants' contents (later keys win).
    public var asStringDict: [String: DBusValue]? {
        guard case .array("{sv}", let entries) = self else { return nil }
        var dict: [String: DBusValue] = [:]
        for case .dictEntry(.string(let key), .variant(let value)) in entries { dict[key] = value }
        return dict
    }
    /// An `a{ss}` array as a dictionary (later keys win).
    public var asStringStringDict: [String: String]? {
        guard case .array("{ss}", let entries) = self else { return nil }
        var dict: [String: String] = [:]
        for case .dictEntry(.string(let key), .string(let value)) in entries { dict[key] = value }
        return dict
    }
}

/// The signature of a list of values (a message body), e.g. `su` for `[.string, .uint32]`.
public func signature(of values: [DBusValue]) -> String {
    values.map(\.signature).joined()
}
