import Glibc

/// Where the servers keep their state files in one table of the run.
struct Medium {
    /// "tmpfs" or "disk".
    let name: String
    let folder: String
    let rounds: Int
    /// Calls per server per pipelined block: on disk every peer call costs about a millisecond of
    /// fsync, so the disk table does fewer, in fewer rounds, to keep the run within a few minutes.
    let pipelinedPerBlock: Int
    /// The accessibility rows, idle wake-ups and the SnapCore row are about the process, not the
    /// medium: measured once, with the tmpfs table.
    let measuresProcess: Bool
}

/// `snapsize-bench [--json] [--rounds N] [--media both|tmpfs|disk] [--state-dir PATH] [--programs DIR] [--baseline PATH]
/// [--baseline-ctl PATH] [--panel]`
struct Options {
    var json = false
    /// Each round starts fresh processes; figures are medians over rounds. 15 on tmpfs, because with
    /// fewer one run's round-trip ratio scattered far around what many rounds give (docs/PERFORMANCE.md,
    /// the method); 9 on disk, where a round takes several times as long. `--rounds` sets both.
    var rounds: Int?
    var tmpfs = true, disk = true
    /// The disk folder: /var/tmp (a disk, like ~/.local/state, and unlike /tmp on some systems).
    var stateDirectory = "/var/tmp"
    /// Where snapsized, snapcore-bench and the C helpers are (default: next to this program).
    var programsDirectory: String?
    /// Another snapsized build, measured in every round beside this one (its own column and ratio).
    var baseline: String?
    /// `--panel`: only the panel's rows (PanelBench), which the full run prints last.
    var panelOnly = false
    /// Another snapsizectl build, run beside this one in the key-press rows.
    var baselineCtl: String?

    var media: [Medium] {
        var media: [Medium] = []
        if tmpfs {
            media.append(
                Medium(
                    name: "tmpfs", folder: "/dev/shm", rounds: rounds ?? 15, pipelinedPerBlock: 1000,
                    measuresProcess: true))
        }
        if disk {
            media.append(
                Medium(
                    name: "disk", folder: stateDirectory, rounds: rounds ?? 9, pipelinedPerBlock: 250,
                    measuresProcess: !tmpfs))
        }
        return media
    }

    static let usage = """
        usage: snapsize-bench [--json] [--rounds N] [--media both|tmpfs|disk] [--state-dir PATH] [--programs DIR]
                              [--baseline PATH] [--baseline-ctl PATH] [--panel]
          --json            one JSON object instead of the tables
          --rounds N        rounds with fresh processes (default 15 on tmpfs, 9 on disk); figures are medians over rounds
          --media M         both (default): a table with the state files on tmpfs (/dev/shm), then one on disk
          --state-dir PATH  the disk folder for the servers' state files (default /var/tmp)
          --programs DIR    where snapsized, snapcore-bench and the C programs of Benchmarks/ are
                            (default: this program's folder)
          --baseline PATH   another build of snapsized, measured in the same rounds on a bus of its own
                            (a baseline column, and snapsized's ratio to it): is a change slower?
          --baseline-ctl PATH  another build of snapsizectl, run beside this one in the key-press rows
          --panel           only the panel's rows (snapsize-panel under Xvfb beside a plain GTK 4 window),
                            which the full run prints after its tables (not in --json)

        """

    static func parse(_ arguments: [String]) throws(BenchError) -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": options.json = true
            case "--rounds":
                guard let value = rest.popFirst(), let rounds = Int(value), rounds >= 1, rounds <= 50
                else {
                    throw BenchError("--rounds needs a whole number from 1 to 50")
                }
                options.rounds = rounds
            case "--media":
                switch rest.popFirst() {
                case "both": (options.tmpfs, options.disk) = (true, true)
                case "tmpfs": (options.tmpfs, options.disk) = (true, false)
                case "disk": (options.tmpfs, options.disk) = (false, true)
                default: throw BenchError("--media needs both, tmpfs or disk")
                }
            case "--state-dir":
                guard let value = rest.popFirst(), value.hasPrefix("/") else {
                    throw BenchError("--state-dir needs an absolute path")
                }
                options.stateDirectory = value
            case "--programs":
                guard let value = rest.popFirst() else { throw BenchError("--programs needs a folder") }
                options.programsDirectory = value
            case "--baseline":
                guard let value = rest.popFirst() else {
                    throw BenchError("--baseline needs the path of a snapsized")
                }
                options.baseline = value
            case "--baseline-ctl":
                guard let value = rest.popFirst() else {
                    throw BenchError("--baseline-ctl needs the path of a snapsizectl")
                }
                options.baselineCtl = value
            case "--panel": options.panelOnly = true
            case "--help", "-h":
                print(usage, terminator: "")
                exit(0)
            default:
                throw BenchError("unknown argument \(argument)\n\(usage)")
            }
        }
        return options
    }
}
