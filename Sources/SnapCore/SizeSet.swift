/// The allowed sizes: non-empty and strictly increasing.
///
/// The selection is an index into this list, never a size, so the model cannot hold a size in between.
public struct SizeSet: Equatable, Sendable {
    public let sizes: [Int]

    public init(_ sizes: [Int]) throws(SnapError) {
        guard !sizes.isEmpty else { throw .emptySizes }
        for position in sizes.indices.dropFirst() where sizes[position] <= sizes[position - 1] {
            throw .unsortedSizes(position: position)
        }
        self.sizes = sizes
    }

    /// The default set: 20, 40, 60, 80 and 100 points.
    public static let standard = try! SizeSet([20, 40, 60, 80, 100])  // literal known to be valid

    @inlinable public var count: Int { sizes.count }
    public var lastIndex: Int { sizes.count - 1 }
    @inlinable public subscript(index: Int) -> Int { sizes[index] }
    public func contains(index: Int) -> Bool { index >= 0 && index < sizes.count }

    /// `index` moved into the valid range (steps stop at the ends); `clamped` says whether it had to move.
    public func clamp(_ index: Int) -> (index: Int, clamped: Bool) {
        let valid = min(max(index, 0), lastIndex)
        return (valid, valid != index)
    }

    /// The index of the allowed size nearest to `value` by numeric distance.
    ///
    /// Ties go to the larger size; values beyond either end clamp to that end.
    public func index(nearestTo value: Double) throws(SnapError) -> Int {
        guard value.isFinite else { throw .nonFinite(what: .size) }
        return nearestIndex(finite: value)
    }

    /// Integer form of ``index(nearestTo:)``: every `Int` is finite, so it cannot fail.
    public func index(nearestTo value: Int) -> Int {
        nearestIndex(finite: Double(value))
    }

    /// Binary search for the first size >= value, then pick between it and its lower neighbour.
    @inline(__always)
    @usableFromInline
    func nearestIndex(finite value: Double) -> Int {
        var low = 0, high = sizes.count
        while low < high {
            let middle = (low + high) / 2
            if Double(sizes[middle]) < value { low = middle + 1 } else { high = middle }
        }
        if low == 0 { return 0 }
        if low == sizes.count { return sizes.count - 1 }
        let below = value - Double(sizes[low - 1])
        let above = Double(sizes[low]) - value
        return below < above ? low - 1 : low
    }
}
