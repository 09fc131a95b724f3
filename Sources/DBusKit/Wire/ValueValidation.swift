internal import CDBus

// libdbus treats a badly-typed append (an array element of the wrong type, a dict entry outside an
// array, invalid UTF-8 …) as a programming error and aborts the process. DBusKit therefore checks
// every value against the D-Bus type rules before any byte is written.

extension DBusValue {
    /// A description of why this value cannot be sent as a top-level argument, or nil when it can.
    var validationProblem: String? {
        switch self {
        case .dictEntry:
            return "a dict entry is only allowed as an array element"
        case .unixFD:
            return Self.sendsNoDescriptors
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .objectPath,
            .string, .signature, .variant:
            // One-letter signatures that are always a valid single type: skip building and
            // re-validating them with libdbus, which every PropertiesChanged paid per entry.
            return contentProblem
        case .array, .structure:
            break
        }
        guard isValidSignature(signature, single: true) else {
            return "invalid type signature \"\(signature)\""
        }
        return contentProblem
    }

    /// Checks what the signature alone cannot: element types, strings and nested signatures.
    private var contentProblem: String? {
        switch self {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .objectPath:
            return nil
        case .string(let s):
            return isValidCString(s) ? nil : "string contains a NUL character"
        case .signature(let s):
            return isValidSignature(s, single: false) ? nil : "invalid signature value \"\(s)\""
        case .array(let element, let values):
            for value in values {
                if !value.hasSignature(element) {
                    return "array element of type \"\(value.signature)\" in an array of \"\(element)\""
                }
                if let problem = value.contentProblem { return problem }
            }
            return nil
        case .structure(let members):
            for member in members {
                if let problem = member.contentProblem { return problem }
            }
            return nil
        case .variant(let inner):
            return inner.validationProblem
        case .dictEntry(let key, let value):
            return key.contentProblem ?? value.contentProblem
        case .unixFD:
            return Self.sendsNoDescriptors
        }
    }

    /// Why a value holding a `UnixFD` is never sent: DBusKit only receives descriptors.
    private static let sendsNoDescriptors = "DBusKit does not send unix file descriptors"
}

/// Checks a signature with libdbus's rules; `single` requires exactly one complete type.
/// The corresponding C functions are `dbus_signature_validate_single` and `dbus_signature_validate`.
func isValidSignature(_ s: String, single: Bool) -> Bool {
    guard isValidCString(s) else { return false }
    return single ? dbus_signature_validate_single(s, nil) != 0 : dbus_signature_validate(s, nil) != 0
}

// MARK: - Comparing signatures without building them

extension DBusValue {
    /// Whether `signature == expected`, decided without allocating the signature string (arrays of
    /// dict entries and the reply check in the dispatcher ask this once per element, per message).
    func hasSignature(_ expected: String) -> Bool {
        matchesSignatures([self], expected)
    }
}

/// Whether `signature(of: values) == expected`, without allocating.
func matchesSignatures(_ values: [DBusValue], _ expected: String) -> Bool {
    var expected = expected
    return expected.withUTF8 { bytes in
        var offset = 0
        for value in values {
            guard value.consumeSignature(bytes, &offset) else { return false }
        }
        return offset == bytes.count
    }
}

extension DBusValue {
    /// Advances `offset` past this value's signature in `bytes`; false at the first difference.
    fileprivate func consumeSignature(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> Bool {
        func letter(_ code: Unicode.Scalar) -> Bool {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: code) else { return false }
            offset += 1
            return true
        }
        switch self {
        case .byte: return letter("y")
        case .boolean: return letter("b")
        case .int16: return letter("n")
        case .uint16: return letter("q")
        case .int32: return letter("i")
        case .uint32: return letter("u")
        case .int64: return letter("x")
        case .uint64: return letter("t")
        case .double: return letter("d")
        case .string: return letter("s")
        case .objectPath: return letter("o")
        case .signature: return letter("g")
        case .variant: return letter("v")
        case .unixFD: return letter("h")
        case .array(let element, _):
            guard letter("a") else { return false }
            var element = element
            return element.withUTF8 { elementBytes in
                guard bytes.count - offset >= elementBytes.count,
                    elementBytes.indices.allSatisfy({ bytes[offset + $0] == elementBytes[$0] })
                else { return false }
                offset += elementBytes.count
                return true
            }
        case .structure(let members):
            guard letter("(") else { return false }
            for member in members where !member.consumeSignature(bytes, &offset) { return false }
            return letter(")")
        case .dictEntry(let key, let value):
            return letter("{") && key.consumeSignature(bytes, &offset)
                && value.consumeSignature(bytes, &offset)
                && letter("}")
        }
    }
}
