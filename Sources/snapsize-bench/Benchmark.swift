import SnapCLI
import Foundation
import TestSupport
import SystemCalls

/// The whole run: a private session bus per server (and the accessibility bus), the rounds, the SnapCore
/// micro-benchmark, the report. Everything started here is stopped here, by PID.
struct Benchmark {
    let options: Options

    func run() throws -> String {
        let folder = options.programsDirectory ?? productsDirectory
        let panel = PanelBench(panel: folder + "/snapsize-panel", plain: folder + "/snapsize-plain-gtk4")
        if options.panelOnly { return panel.run() }
        let started = monotonicNow()
        let programs = try locatePrograms()

        // Every server on a bus of its own, each bus the same: a bus's cost per message grows with the
        // connections and match rules on it, so servers sharing one would slow each other down.
        var buses: [ServerKind: BenchBus] = [:]
        defer { for bus in buses.values { bus.stop() } }
        for kind in programs.kinds { buses[kind] = try BenchBus(for: kind) }
        let accessibility = try AccessibilityStack(sessionEnvironment: buses[.daemon]!.environment)
        defer { accessibility.stop() }
        let listener = try AccessibilityListener(
            program: programs.listener, environment: accessibility.environment)
        let keyPress = try KeyPressRunner(
            snapsizectl: programs.snapsizectl, baseline: programs.baselineCtl,
            environment: buses[.daemon]!.environment)

        var tables: [(medium: Medium, rows: [Row], keyPress: [KeyPressRow], seconds: Double)] = []
        for medium in options.media {
            let mediumStarted = monotonicNow()
            let stateFolder = try makeStateFolder(medium)
            defer { try? FileManager.default.removeItem(atPath: stateFolder) }
            var results: [RoundResult] = []
            for number in 0..<medium.rounds {
                let round = Round(
                    number: number, programs: programs, stateFolder: stateFolder,
                    pipelinedPerBlock: medium.pipelinedPerBlock, buses: buses,
                    accessibilityEnvironment: accessibility.environment,
                    listener: medium.measuresProcess ? listener : nil,
                    measureIdle: medium.measuresProcess && number == medium.rounds - 1,
                    keyPress: medium.measuresProcess ? keyPress : nil)
                results.append(try round.run())
            }
            let core =
                medium.measuresProcess
                ? SnapCoreComparison(swift: programs.coreBench, c: programs.coreC) : nil
            let rows = Summary(rounds: results, medium: medium.name, snapCore: core).rows
            let keyPressRows =
                medium.measuresProcess
                ? KeyPressSummary(rounds: results.compactMap(\.keyPresses)).rows : []
            tables.append((medium, rows, keyPressRows, monotonicNow() - mediumStarted))
        }
        _ = listener
        let seconds = monotonicNow() - started
        if options.json {
            return Report.json(
                tables.map { table in
                    (
                        table.medium.name,
                        [
                            ("rounds", JSON.int(table.medium.rounds)),
                            ("stateDirectory", .string(table.medium.folder)),
                            ("seconds", .double((table.seconds * 10).rounded() / 10))
                        ]
                            + (table.keyPress.isEmpty
                                ? [] : [("keyPress", KeyPressSummary.json(table.keyPress))]),
                        table.rows
                    )
                }, context: [("seconds", .double((seconds * 10).rounded() / 10))])
        }
        return tables.map { table in
            Report.table(
                table.rows,
                header:
                    "snapsize-bench, state on \(table.medium.name): \(table.medium.rounds) rounds of fresh processes, "
                    + "medians over rounds; state files in \(table.medium.folder); \(format(table.seconds, 1)) s"
            )
                + (table.keyPress.isEmpty
                    ? ""
                    : "\n"
                        + KeyPressSummary.table(
                            table.keyPress,
                            header:
                                "key press: whole processes from exec to exit, each stepping snapsized once (state on \(table.medium.name)), "
                                + "\(Workload.keyPressBlocks * Workload.keyPressPerBlock) per client per round, alternating; medians over rounds"
                        ))
        }.joined(separator: "\n") + "\n" + panel.run()
    }

    private func locatePrograms() throws -> Programs {
        let folder = options.programsDirectory ?? productsDirectory
        let programs = Programs(
            daemon: folder + "/snapsized", floor: folder + "/snapsize-floor",
            sdbusPeer: folder + "/snapsize-sdbus-peer", gdbusPeer: folder + "/snapsize-gdbus-peer",
            listener: folder + "/snapsize-a11y-listener", coreBench: folder + "/snapcore-bench",
            coreC: folder + "/snapcore-bench-c", snapsizectl: folder + "/snapsizectl",
            baseline: options.baseline, baselineCtl: options.baselineCtl)
        for path in [
            programs.daemon, programs.floor, programs.sdbusPeer, programs.gdbusPeer, programs.listener,
            programs.coreBench, programs.coreC, programs.snapsizectl
        ]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw BenchError("\(path) is missing; `make bench` builds it")
        }
        for (option, path) in [
            ("--baseline", programs.baseline), ("--baseline-ctl", programs.baselineCtl)
        ]
        where path.map({ !FileManager.default.isExecutableFile(atPath: $0) }) ?? false {
            throw BenchError("\(option) \(path!) is not an executable file")
        }
        return programs
    }

    /// A fresh folder for this medium's state files, with one subfolder per server and round.
    private func makeStateFolder(_ medium: Medium) throws -> String {
        var template = Array("\(medium.folder)/snapsize-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BenchError("cannot create a folder in \(medium.folder)")
        }
        let folder = String(cString: made)
        for number in 0..<medium.rounds {
            for name in ServerKind.allCases.map(\.rawValue) + ["daemon-a11y"] {
                try FileManager.default.createDirectory(
                    atPath: "\(folder)/round\(number)-\(name)",
                    withIntermediateDirectories: true)
            }
        }
        return folder
    }
}
