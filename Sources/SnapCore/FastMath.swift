// Faster spellings of plain Swift for `Snapper.index(at:)`, kept here so that the rules read plainly
// everywhere else. They exist for one target: index(at:) close to the same mapping in C
// (docs/PERFORMANCE.md; make bench, the SnapCore row). Each says what it replaces; FastMathTests
// holds each to it, and OrdinalDefinitionTests holds index(at:) to the spec's definition written
// with the plain forms.
// When that target goes, these go back to the plain forms.

/// `Int(value)` for a whole number `value` with |value| < 2^51, without `Int(_:)`'s three trapping
/// checks (finite, above Int.min, below Int.max): adding 1.5 * 2^52 puts such a number in the
/// significand's low bits, and the bit pattern minus that constant's is the number. Anything else
/// gives some Int, never a trap, so a caller must clamp the result (index(at:) clamps it into the
/// valid indexes; its rounded position lies in 0...intervals anyway).
@inlinable @inline(__always)
func uncheckedInt(_ value: Double) -> Int {
    Int(truncatingIfNeeded: (value + 0x1.8p52).bitPattern &- (0x1.8p52 as Double).bitPattern)
}

/// `value.isFinite`, as a comparison: two SSE instructions, as C's isfinite, where `isFinite`
/// moves the bits to an integer register and compares them with two 64-bit constants. NaN compares
/// false, as it must.
@inlinable @inline(__always)
func isFiniteFast(_ value: Double) -> Bool {
    value.magnitude <= .greatestFiniteMagnitude
}

/// `max(value, 0)` for a value that is not NaN: one maxsd, where `max`, which must return 0 for a
/// NaN, takes a compare and a mask. Keep it `value > 0 ? value : 0`.
@inlinable @inline(__always)
func atLeastZero(_ value: Double) -> Double {
    value > 0 ? value : 0
}
