import Foundation
import TestSupport

// `make bench`: snapsized against a plain-C floor doing the same work, measured side by side, each on
// a private bus of its own, in rounds of fresh processes; prints daemon, floor and their ratio per row
// (see docs/PERFORMANCE.md).

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("snapsize-bench: \(error)\n".utf8))
    exit(64)
}

do {
    let report = try Benchmark(options: options).run()
    print(report, terminator: "")
} catch {
    FileHandle.standardError.write(Data("snapsize-bench: \(error)\n".utf8))
    exit(1)
}
