/// The one mapping between track positions, values and indexes, used for input and for drawing.
public struct Snapper: Equatable, Sendable {
    public let sizes: SizeSet
    public let track: Track
    public let layout: Layout

    public init(sizes: SizeSet = .standard, track: Track = .standard, layout: Layout = .ordinal) {
        self.sizes = sizes
        self.track = track
        self.layout = layout
    }

    /// The index a pointer at `x` selects.
    ///
    /// Ordinal: the clamped fraction times the number of intervals, rounded to nearest with ties
    /// away from zero. Numeric: the allowed size nearest to the value at `x`, ties to the larger.
    /// Positions beyond either end select that end; they are never discarded.
    /// Inlinable: the daemon and the CLI call it from other modules, and a call costs more than the
    /// mapping itself. The helpers it uses that are faster spellings of plain Swift are in FastMath.swift.
    @inlinable @inline(__always)
    public func index(at x: Double) throws(SnapError) -> Int {
        guard isFiniteFast(x) else { throw .nonFinite(what: .pointerPosition) }
        let intervals = sizes.count - 1
        if intervals == 0 { return 0 }
        // offset * intervals / usable is the spec's clamp(fraction) * intervals, multiplied before
        // dividing so that an exact midpoint stays an exact .5 and the tie rule applies.
        let offset = track.offset(at: x)
        switch layout {
        case .ordinal:
            let position = scale(offset, by: Double(intervals), over: track.usable).rounded(
                .toNearestOrAwayFromZero)
            // Clamped to the indexes in integers, after a conversion that cannot trap (FastMath.swift).
            return min(max(uncheckedInt(position), 0), intervals)
        case .numeric:
            let first = Double(sizes[0]), last = Double(sizes[intervals])
            return sizes.nearestIndex(
                finite: first + scale(offset, by: last - first, over: track.usable))
        }
    }

    /// Where the thumb centre of `index` is drawn; the inverse of ``index(at:)``.
    ///
    /// A single size sits in the middle of the track.
    public func position(of index: Int) throws(SnapError) -> Double {
        guard sizes.contains(index: index) else {
            throw .indexOutOfRange(index: index, count: sizes.count)
        }
        let intervals = sizes.count - 1
        if intervals == 0 { return track.width / 2 }
        switch layout {
        case .ordinal:
            return track.inset + scale(Double(index), by: track.usable, over: Double(intervals))
        case .numeric:
            let first = Double(sizes[0]), last = Double(sizes[intervals])
            return track.inset
                + scale(Double(sizes[index]) - first, by: track.usable, over: last - first)
        }
    }

    /// An index given as a number (an accessibility value write such as 3.6): rounded to nearest
    /// with ties away from zero, then clamped to the valid indexes.
    public func index(roundingIndexValue value: Double) throws(SnapError) -> Int {
        guard value.isFinite else { throw .nonFinite(what: .indexValue) }
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        return Int(min(max(rounded, 0), Double(sizes.lastIndex)))
    }
}

/// `value * factor / divisor`, multiplying first so exact midpoints stay exact, but dividing first
/// when the product would overflow (tracks near Double.greatestFiniteMagnitude), so it stays finite.
@inlinable @inline(__always)
func scale(_ value: Double, by factor: Double, over divisor: Double) -> Double {
    let product = value * factor
    return isFiniteFast(product) ? product / divisor : value / divisor * factor
}
