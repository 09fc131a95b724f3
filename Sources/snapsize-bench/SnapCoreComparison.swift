import Foundation
import TestSupport

/// SnapCore's `index(at:)` (Sources/snapcore-bench) against the same mapping written in C and
/// compiled -O2 (Benchmarks/core/index-at.c), run alternately eleven times each after every server
/// has stopped (C, Swift, C, ...); the ratio is the median of the eleven runs' Swift/C ratios, each
/// against the C run just before it (on a shared machine one run can be twice as slow as the next:
/// three pairs left the median to one such run, and seven still moved it visibly). Both print a checksum of
/// their answers; a difference means the two are not the same mapping, and the row is dropped.
struct SnapCoreComparison {
    private(set) var swiftNanoseconds = 0.0
    private(set) var cNanoseconds = 0.0
    private(set) var ratio = 0.0

    init?(swift: String, c: String) {
        var swiftRuns: [Double] = [], cRuns: [Double] = [], ratios: [Double] = []
        for _ in 0..<11 {
            guard let (cTime, cSum) = Self.measure(c, []),
                let (swiftTime, swiftSum) = Self.measure(swift, ["--index-only"]),
                cSum == swiftSum, cTime > 0
            else { return nil }
            swiftRuns.append(swiftTime)
            cRuns.append(cTime)
            ratios.append(swiftTime / cTime)
        }
        swiftNanoseconds = Statistics.median(swiftRuns)
        cNanoseconds = Statistics.median(cRuns)
        ratio = Statistics.median(ratios)
    }

    /// ns/op and checksum from the line "index(at:) ordinal, 5 sizes  N ns/op   (checksum C)".
    private static func measure(_ program: String, _ arguments: [String]) -> (Double, String)? {
        guard
            let output = try? TestSupport.run(
                program, arguments, environment: ProcessInfo.processInfo.environment,
                timeout: 60), output.status == 0
        else { return nil }
        for line in output.stdout.split(separator: "\n") where line.hasPrefix("index(at:) ordinal") {
            let words = line.split(separator: " ")
            guard let unit = words.firstIndex(of: "ns/op"), unit > 0, let time = Double(words[unit - 1]),
                let checksum = words.last?.filter({ $0.isNumber })
            else { return nil }
            return (time, String(checksum))
        }
        return nil
    }
}
