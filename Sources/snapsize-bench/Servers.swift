import Foundation
import SizeSelectorContract
import TestSupport
import SystemCalls

/// The servers measured side by side. All serve the same object and interface; each owns its own name.
enum ServerKind: String, CaseIterable {
    /// snapsized itself (the release build).
    case daemon
    /// Benchmarks/floor/floor.c: the least work the contract requires.
    case floor
    /// Benchmarks/peers/sdbus-peer.c: the daemon as systemd would write it (sd-bus, sd_event).
    case sdbus
    /// Benchmarks/peers/gdbus-peer.c: the daemon as GNOME would write it (GDBus, GMainLoop).
    case gdbus
    /// The floor without persistence and with only Committed, for information.
    case bare
    /// Another build of snapsized (`--baseline PATH`), on a bus of its own: for a change that must
    /// not make the daemon slower, measured in the same rounds instead of in another run.
    case baseline

    var busName: String {
        switch self {
        case .daemon, .baseline: SelectorBus.name.rawValue
        case .floor: "org.snapsize.bench.Floor"
        case .sdbus: "org.snapsize.bench.SdBus"
        case .gdbus: "org.snapsize.bench.GDBus"
        case .bare: "org.snapsize.bench.BareFloor"
        }
    }

    /// The column title.
    var title: String {
        switch self {
        case .daemon: "snapsized"
        case .floor: "floor"
        case .sdbus: "sd-bus"
        case .gdbus: "GDBus"
        case .bare: "bare floor"
        case .baseline: "baseline"
        }
    }
}

/// One process's memory at one moment, in bytes (smaps_rollup).
struct Memory {
    var resident: Double
    var proportional: Double
    var exclusive: Double
}

/// Where the programs under test are.
struct Programs {
    let daemon: String
    let floor: String
    let sdbusPeer: String
    let gdbusPeer: String
    let listener: String
    let coreBench: String
    /// Benchmarks/core/index-at.c: SnapCore's index(at:) written in C, compiled -O2.
    let coreC: String
    /// The CLI whose `inc` a key binding starts (the key-press rows).
    let snapsizectl: String
    /// `--baseline`: the snapsized to measure beside `daemon`.
    let baseline: String?
    /// `--baseline-ctl`: another snapsizectl, run beside `snapsizectl` in the key-press rows.
    let baselineCtl: String?

    /// The servers of every round.
    var kinds: [ServerKind] { ServerKind.allCases.filter { $0 != .baseline || baseline != nil } }
}

/// One running server: the process (started with a clean signal mask by TestSupport's posix_spawn
/// wrapper, stopped by its PID) and the unique name it answers from.
final class RunningServer {
    let kind: ServerKind
    /// The bus it serves on, and the connections that call it there.
    let bus: BenchBus
    let process: ChildProcess
    let uniqueName: String
    /// Seconds from just before posix_spawn to NameOwnerChanged received.
    let startUpSeconds: Double

    /// Starts `kind` and waits for NameOwnerChanged giving the name a new owner (subscribed before
    /// the spawn, never polled; the previous owner's late "name lost" must not count).
    init(
        _ kind: ServerKind, on bus: BenchBus, programs: Programs, stateFile: String, accessibility: Bool,
        environment: [String: String]
    ) throws {
        self.kind = kind
        self.bus = bus
        let executable: String
        var arguments: [String]
        switch kind {
        case .daemon, .baseline:
            guard let program = kind == .daemon ? programs.daemon : programs.baseline else {
                throw BenchError("no --baseline to run")
            }
            executable = program
            arguments = ["--state-file", stateFile]
            if !accessibility { arguments.append("--no-accessibility") }
        case .floor, .bare:
            executable = programs.floor
            arguments = ["--name", kind.busName, "--state", stateFile]
            if kind == .bare { arguments.append("--bare") }
        case .sdbus, .gdbus:
            executable = kind == .sdbus ? programs.sdbusPeer : programs.gdbusPeer
            arguments = ["--name", kind.busName, "--state", stateFile]
        }
        let names = bus.names
        names.drain()
        let started = monotonicNow()
        process = try ChildProcess(executable, arguments, environment: environment)
        let name = kind.busName
        guard
            let owned = names.awaitSignal(
                member: "NameOwnerChanged", sender: "org.freedesktop.DBus", timeout: 10,
                arguments: { $0.count == 3 && $0[0] == name && !$0[2].isEmpty })
        else {
            let log = process.stderr
            process.forceKill()
            throw BenchError("\(kind.rawValue) did not take \(name) within 10 s: \(log)")
        }
        startUpSeconds = owned - started
        guard let unique = names.owner(of: name) else {
            throw BenchError("\(name) has no owner after start-up")
        }
        uniqueName = unique
    }

    func stop() { process.terminate(timeout: 2) }

    // MARK: /proc

    /// Time on a CPU of every thread, in seconds: the first field of /proc/PID/task/TID/schedstat,
    /// in nanoseconds (utime + stime from /proc/PID/stat count clock ticks, too coarse for a round).
    var cpuSeconds: Double {
        sumOverThreads("schedstat") { text in
            (text.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1e9
        }
    }

    /// Peak resident set size (VmHWM) in bytes.
    var peakResidentBytes: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)
        else { return 0 }
        return statusField("VmHWM:", in: text) * 1024
    }

    /// RSS, PSS and private memory from /proc/PID/smaps_rollup. RSS counts every shared page in full
    /// (libc, libdbus, the locale files every desktop process maps); PSS splits a shared page between
    /// the processes that map it, and private (Private_Clean + Private_Dirty) is what this process
    /// alone holds, what quitting it would give back.
    var memory: Memory {
        guard
            let text = try? String(contentsOfFile: "/proc/\(process.pid)/smaps_rollup", encoding: .utf8)
        else {
            return Memory(resident: 0, proportional: 0, exclusive: 0)
        }
        return Memory(
            resident: statusField("Rss:", in: text) * 1024,
            proportional: statusField("Pss:", in: text) * 1024,
            exclusive: (statusField("Private_Clean:", in: text) + statusField("Private_Dirty:", in: text))
                * 1024)
    }

    /// Voluntary plus involuntary context switches of every thread: each one is a wake-up.
    var contextSwitches: Double {
        sumOverThreads("status") { text in
            statusField("voluntary_ctxt_switches:", in: text)
                + statusField("nonvoluntary_ctxt_switches:", in: text)
        }
    }

    /// `value` of /proc/PID/task/TID/`file`, summed over the process's threads.
    private func sumOverThreads(_ file: String, _ value: (String) -> Double) -> Double {
        let tasks =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/task")) ?? []
        return tasks.reduce(0) { sum, task in
            guard
                let text = try? String(
                    contentsOfFile: "/proc/\(process.pid)/task/\(task)/\(file)", encoding: .utf8)
            else { return sum }
            return sum + value(text)
        }
    }

    private func statusField(_ key: String, in text: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            let digits = line.dropFirst(key.count).filter { $0.isNumber }
            return Double(String(digits)) ?? 0
        }
        return 0
    }
}
