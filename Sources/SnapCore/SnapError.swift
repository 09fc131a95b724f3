/// Everything SnapCore can refuse, as typed values.
///
/// The core knows nothing about D-Bus: the service maps each case to an error name in one
/// exhaustive switch, so a new case does not compile until it has a name on the bus.
public enum SnapError: Error, Equatable, Sendable {
    /// The list of allowed sizes is empty.
    case emptySizes
    /// `sizes[position]` is not larger than the size before it (the list must strictly increase).
    case unsortedSizes(position: Int)
    /// The track cannot hold a thumb: `width <= 2 * inset`, or a value is negative or not finite.
    case invalidTrack(width: Double, inset: Double)
    /// A pointer position or value that is NaN or infinite.
    case nonFinite(what: String)
    /// An index beyond the allowed sizes.
    case indexOutOfRange(index: Int, count: Int)
    /// A preview owned by another client is open, so this change is refused.
    case previewActive(owner: PreviewOwner)
}

extension SnapError: CustomStringConvertible {
    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .emptySizes:
            return "the list of sizes is empty; give at least one size, for example 20,40,60,80,100"
        case .unsortedSizes(let position):
            return "the sizes must strictly increase, but size number \(position + 1) is not larger than the one before it"
        case .invalidTrack(let width, let inset):
            return "the track width \(width) must be finite and larger than twice the inset \(inset), which must be finite and not negative"
        case .nonFinite(let what):
            return "\(what) must be a finite number (not NaN or infinity)"
        case .indexOutOfRange(let index, let count):
            return "index \(index) is out of range: valid indexes are 0 to \(count - 1)"
        case .previewActive(let owner):
            return "a preview is open (held by \(owner.id)); commit or cancel it first, or wait for it to end"
        }
    }
}
