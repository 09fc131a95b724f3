import Glibc

/// `make stress` sets SNAPSIZE_STRESS=1 for the long forms of the reliability tests.
public let stressing = getenv("SNAPSIZE_STRESS").map { String(cString: $0) } == "1"

/// A small deterministic generator (SplitMix64), so a failing run can be replayed from its seed.
public struct SeededRandom: RandomNumberGenerator {
    /// What it started from: put it in failure messages.
    public let seed: UInt64
    private var state: UInt64
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// Seeded from SNAPSIZE_SEED when set (to replay a failure), else at random; the seed is printed
    /// under `test`'s name, and tests put it in every failure message too.
    public static func replayable(_ test: String) -> SeededRandom {
        let seed =
            getenv("SNAPSIZE_SEED").flatMap { UInt64(String(cString: $0)) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("\(test): seed \(seed) (SNAPSIZE_SEED=\(seed) replays it)")
        return SeededRandom(seed: seed)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
