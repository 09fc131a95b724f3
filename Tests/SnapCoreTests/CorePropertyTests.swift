import Testing
import SnapCore
import TestSupport

@Suite("Reliability: SnapCore property test")
struct CorePropertyTests {
    @Test("random geometry, size lists and positions never trap and always give a valid index")
    func randomCore() throws {
        var random = SeededRandom.replayable("SnapCore property test")
        let seed = random.seed
        let extremes: [Double] = [
            .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, 0, -0.0, 1e-300, 1e300
        ]
        for _ in 0..<(stressing ? 200_000 : 20_000) {
            let count = Int.random(in: 0...8, using: &random)
            var sizes: [Int] = []
            for _ in 0..<count {
                sizes.append(
                    random.next() % 3 == 0
                        ? Int(truncatingIfNeeded: random.next())
                        : Int.random(in: -50...500, using: &random))
            }
            if random.next() % 2 == 0 { sizes.sort() }
            let width =
                random.next() % 5 == 0
                ? extremes.randomElement(using: &random)! : Double.random(in: -10...1000, using: &random)
            let inset =
                random.next() % 5 == 0
                ? extremes.randomElement(using: &random)! : Double.random(in: -5...100, using: &random)
            guard let set = try? SizeSet(sizes), let track = try? Track(width: width, inset: inset)
            else { continue }
            let snapper = Snapper(
                sizes: set, track: track, layout: random.next() % 2 == 0 ? .ordinal : .numeric)
            for _ in 0..<4 {
                let x =
                    random.next() % 3 == 0
                    ? extremes.randomElement(using: &random)!
                    : Double.random(in: -2000...2000, using: &random)
                if let index = try? snapper.index(at: x) {
                    #expect(x.isFinite && index >= 0 && index < set.count, "seed \(seed)")
                } else {
                    #expect(!x.isFinite, "seed \(seed)")
                }
                let value = Double.random(in: -1e12...1e12, using: &random)
                #expect(
                    (try? set.index(nearestTo: value)).map { $0 >= 0 && $0 < set.count } == true,
                    "seed \(seed)")
                #expect(
                    (try? snapper.index(roundingIndexValue: value)).map { $0 >= 0 && $0 < set.count }
                        == true, "seed \(seed)")
            }
        }
    }
}
