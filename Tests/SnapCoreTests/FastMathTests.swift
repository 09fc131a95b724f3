import Testing
@testable import SnapCore

/// Each fast helper of FastMath.swift against the plain Swift it stands for.
@Suite("FastMath against the plain forms")
struct FastMathTests {
    @Test("uncheckedInt converts whole numbers below 2^51 exactly and never traps on anything else")
    func wholeNumbers() {
        let limit = Double(1 << 51)
        for value in [0.0, -0.0, 1, -1, 4, 4097, 1e15, -1e15, limit - 1, -(limit - 1), -limit] {
            #expect(uncheckedInt(value) == Int(value), "\(value)")
        }
        for value in [
            Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, 0.5, limit, 1e300, -1e300
        ] {
            _ = uncheckedInt(value)  // any Int: index(at:) clamps it
        }
    }

    @Test("isFiniteFast is isFinite")
    func finite() {
        for value in [
            1, -.greatestFiniteMagnitude, .greatestFiniteMagnitude, 0, -0.0, .leastNonzeroMagnitude,
            .nan, .infinity, -.infinity, -.nan
        ] as [Double] {
            #expect(isFiniteFast(value) == value.isFinite, "\(value)")
        }
    }

    @Test("atLeastZero is max(_, 0) for every value but NaN")
    func atLeastZeroIsMax() {
        for value in [
            1, -1, 0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .infinity, -.infinity,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude
        ] as [Double] {
            #expect(atLeastZero(value) == max(value, 0), "\(value)")
        }
    }
}
