/// Everything SnapCore can refuse, as typed values.
///
/// The core knows nothing about D-Bus or words: the service maps each case to an error name in one
/// exhaustive switch, so a new case does not compile until it has a name on the bus, and SnapTexts
/// says each one to a person (`Texts.refusal`), in their language.
public enum SnapError: Error, Equatable, Sendable {
    /// The list of allowed sizes is empty.
    case emptySizes
    /// `sizes[position]` is not larger than the size before it (the list must strictly increase).
    case unsortedSizes(position: Int)
    /// The track cannot hold a thumb: `width <= 2 * inset`, or a value is negative or not finite.
    case invalidTrack(width: Double, inset: Double)
    /// A pointer position or value that is NaN or infinite.
    case nonFinite(what: Input)
    /// An index beyond the allowed sizes.
    case indexOutOfRange(index: Int, count: Int)
    /// A preview owned by another client is open, so this change is refused.
    case previewActive(owner: PreviewOwner)
}

extension SnapError {
    /// Which number was not finite.
    public enum Input: Equatable, Sendable {
        case pointerPosition
        case indexValue
        case size
    }
}
