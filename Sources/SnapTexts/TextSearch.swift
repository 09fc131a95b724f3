extension Texts {
    /// Whether `text` holds `part` (by UTF-8 bytes; an empty `part` is in every text). The modules
    /// of the programs leave out the implicit _StringProcessing (Package.swift, noStringProcessing),
    /// whose `contains` this replaces.
    public static func contains(_ text: some StringProtocol, _ part: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8), wanted = Array(part.utf8)
        guard wanted.count <= bytes.count else { return false }
        return (0...(bytes.count - wanted.count)).contains { start in
            bytes[start..<(start + wanted.count)].elementsEqual(wanted)
        }
    }
}
