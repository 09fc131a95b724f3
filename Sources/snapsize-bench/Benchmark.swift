import SnapCLI
import Foundation
import TestSupport

/// The whole run: one private session bus (and accessibility bus), the rounds, the SnapCore
/// micro-benchmark, the report. Everything started here is stopped here, by PID.
struct Benchmark {
    let options: Options

    func run() throws -> String {
        let started = monotonicNow()
        let programs = try locatePrograms()
        let stateFolder = try makeStateFolder()
        defer { try? FileManager.default.removeItem(atPath: stateFolder) }

        let bus = try PrivateSessionBus()
        defer { bus.stop() }
        let accessibility = try AccessibilityStack(sessionEnvironment: bus.environment)
        defer { accessibility.stop() }
        let listener = try AccessibilityListener(program: programs.listener, environment: accessibility.environment)

        let caller = try BusClient(address: bus.address)
        let watcher = try BusClient(address: bus.address)
        let names = try BusClient(address: bus.address)
        for kind in ServerKind.allCases {
            try names.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                               + "member='NameOwnerChanged',arg0='\(kind.busName)'")
        }

        var results: [RoundResult] = []
        for number in 0..<options.rounds {
            let round = Round(number: number, programs: programs, stateFolder: stateFolder,
                              environment: bus.environment, accessibilityEnvironment: accessibility.environment,
                              caller: caller, watcher: watcher, names: names, listener: listener,
                              measureIdle: number == options.rounds - 1)
            results.append(try round.run())
        }
        _ = listener
        let snapCore = snapCoreNanoseconds(programs.coreBench)
        let summary = Summary(rounds: results, snapCoreNanoseconds: snapCore)
        let seconds = monotonicNow() - started
        if options.json {
            return Report.json(summary.rows, context: [
                ("rounds", .int(options.rounds)), ("stateDirectory", .string(options.stateDirectory)),
                ("seconds", .double((seconds * 10).rounded() / 10)),
            ])
        }
        return Report.table(summary.rows, header:
            "snapsize-bench: \(options.rounds) rounds of fresh processes, medians over rounds; state files in "
            + "\(options.stateDirectory); \(format(seconds, 1)) s")
    }

    private func locatePrograms() throws -> Programs {
        let folder = options.programsDirectory ?? productsDirectory
        let programs = Programs(daemon: folder + "/snapsized", floor: folder + "/snapsize-floor",
                                listener: folder + "/snapsize-a11y-listener", coreBench: folder + "/snapcore-bench")
        for path in [programs.daemon, programs.floor, programs.listener, programs.coreBench]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw BenchError("\(path) is missing; `make bench` builds it")
        }
        return programs
    }

    /// A fresh folder for this run's state files, with one subfolder per server and round.
    private func makeStateFolder() throws -> String {
        var template = Array("\(options.stateDirectory)/snapsize-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a folder in \(options.stateDirectory)") }
        let folder = String(cString: made)
        for number in 0..<options.rounds {
            for name in ServerKind.allCases.map(\.rawValue) + ["daemon-a11y"] {
                try FileManager.default.createDirectory(atPath: "\(folder)/round\(number)-\(name)",
                                                        withIntermediateDirectories: true)
            }
        }
        return folder
    }

    /// ns per `index(at:)` from the SnapCore micro-benchmark, run after every server has stopped.
    private func snapCoreNanoseconds(_ program: String) -> Double? {
        guard let output = try? TestSupport.run(program, [], environment: ProcessInfo.processInfo.environment,
                                                timeout: 60), output.status == 0 else { return nil }
        for line in output.stdout.split(separator: "\n") where line.hasPrefix("index(at:) ordinal") {
            let words = line.split(separator: " ")
            if let unit = words.firstIndex(of: "ns/op"), unit > 0 { return Double(words[unit - 1]) }
        }
        return nil
    }
}
