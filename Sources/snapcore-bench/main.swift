import Glibc
import SnapCore

// Micro-benchmark of SnapCore: nanoseconds per `index(at:)` and per state transition.
// Build in release mode (`make bench-core`). Each figure is the best of 100 short rounds, because a
// shared machine only ever adds time and a short round can miss the other processes; the printed
// checksum keeps the optimiser from dropping the work.

@inline(never)
func measure(_ label: String, iterations: Int, rounds: Int = 100, _ body: (Int) -> Int) -> Double {
    var best = Double.infinity
    var checksum = 0
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        let elapsed = clock.measure { checksum &+= body(iterations) }
        let nanoseconds =
            Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        best = min(best, nanoseconds / Double(iterations))
    }
    let padded = label + String(repeating: " ", count: max(0, 34 - label.count))
    print("\(padded) \(formatted(best)) ns/op   (checksum \(checksum))")
    return best
}

func formatted(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = String(hundredths % 100)
    return "\(hundredths / 100)." + (fraction.count == 1 ? "0" + fraction : fraction)
}

let iterations = 200_000
// Pointer positions spread over and beyond the track, so branches and rounding see every case.
let xs: [Double] = (0..<1024).map { Double($0) * 0.37 - 20 }
let ordinal = Snapper()
let numeric = Snapper(sizes: try SizeSet([20, 30, 60, 100]), layout: .numeric)

print("SnapCore micro-benchmark (release build, best of 100 rounds)")
// The loop is the one in Benchmarks/core/index-at.c, which `make bench` compares with this line: the
// positions read from a buffer without a bounds check (C's array has none) and a plain counted loop
// (a for-in over a range adds an overflow check), so that both time the mapping and not their loops.
let ordinalNs = measure("index(at:) ordinal, 5 sizes", iterations: iterations) { n in
    xs.withUnsafeBufferPointer { xs in
        var sum = 0, i = 0
        while i < n {
            sum &+= (try? ordinal.index(at: xs[i & 1023])) ?? 0
            i &+= 1
        }
        return sum
    }
}
// `make bench` compares the first line with the same mapping in C, alternately: only that.
if CommandLine.arguments.dropFirst().first == "--index-only" { exit(0) }
_ = measure("index(at:) numeric, 4 uneven sizes", iterations: iterations) { n in
    var sum = 0
    for i in 0..<n { sum &+= (try? numeric.index(at: xs[i & 1023])) ?? 0 }
    return sum
}
_ = measure("transition preview(x:by:)", iterations: iterations / 4) { n in
    var selection = try! Selection(committed: 2)  // valid literal index
    let owner = PreviewOwner(":1.1")
    var sum = 0
    for i in 0..<n { sum &+= (try? selection.preview(x: xs[i & 1023], by: owner))?.shown ?? 0 }
    return sum
}
_ = measure("transition step(by:) +1/-1", iterations: iterations / 4) { n in
    var selection = try! Selection(committed: 2)  // valid literal index
    var sum = 0
    for i in 0..<n { sum &+= (try? selection.step(by: (i & 2) - 1))?.change.committed ?? 0 }
    return sum
}
_ = measure("transition preview + commit(x:by:)", iterations: iterations / 8) { n in
    var selection = try! Selection(committed: 2)  // valid literal index
    let owner = PreviewOwner(":1.1")
    var sum = 0
    for i in 0..<n {
        _ = try? selection.preview(x: xs[i & 1023], by: owner)
        sum &+= (try? selection.commit(x: xs[(i + 7) & 1023], by: owner))?.committed ?? 0
    }
    return sum
}
print("target: index(at:) <= 5 ns/op on one core -> \(ordinalNs <= 5 ? "met" : "MISSED")")
