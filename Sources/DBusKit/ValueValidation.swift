internal import CDBus

// libdbus treats a badly-typed append (an array element of the wrong type, a dict entry outside an
// array, invalid UTF-8 …) as a programming error and aborts the process. DBusKit therefore checks
// every value against the D-Bus type rules before any byte is written.

extension DBusValue {
    /// A description of why this value cannot be sent as a top-level argument, or nil when it can.
    var validationProblem: String? {
        if case .dictEntry = self { return "a dict entry is only allowed as an array element" }
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
                if value.signature != element {
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
        }
    }
}

/// Checks a signature with libdbus's rules; `single` requires exactly one complete type.
/// The corresponding C functions are `dbus_signature_validate_single` and `dbus_signature_validate`.
func isValidSignature(_ s: String, single: Bool) -> Bool {
    guard isValidCString(s) else { return false }
    return single ? dbus_signature_validate_single(s, nil) != 0 : dbus_signature_validate(s, nil) != 0
}
