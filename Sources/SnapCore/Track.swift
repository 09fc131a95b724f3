/// How the sizes are spread along the track.
public enum Layout: String, CaseIterable, Sendable {
    /// Every size is one equal step from its neighbours, whatever the values (the default).
    case ordinal
    /// Each size sits at a position proportional to its value between the first and last size.
    case numeric
}

/// The track a thumb slides on: `width` points wide, the thumb centre travelling from `inset`
/// to `width - inset` (the inset is the thumb radius).
public struct Track: Equatable, Sendable {
    public let width: Double
    public let inset: Double

    public init(width: Double = 336, inset: Double = 12) throws(SnapError) {
        guard width.isFinite, inset.isFinite, inset >= 0, width > 2 * inset else {
            throw .invalidTrack(width: width, inset: inset)
        }
        self.width = width
        self.inset = inset
    }

    public static let standard = try! Track()  // defaults known to be valid

    /// The length the thumb centre can travel.
    public var usable: Double { width - 2 * inset }

    /// How far x lies along the usable length, clamped to 0...usable.
    @inlinable @inline(__always)
    func offset(at x: Double) -> Double {
        min(atLeastZero(x - inset), usable)
    }
}
