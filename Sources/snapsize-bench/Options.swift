import Glibc

/// `snapsize-bench [--json] [--rounds N] [--state-dir PATH] [--programs DIR]`
struct Options {
    var json = false
    /// Each round starts fresh processes; figures are medians over rounds. 15, because with 7 the
    /// round-trip ratio of one run scattered from 1.03x to 1.14x around the 1.04x that 21 rounds give.
    var rounds = 15
    /// Where the servers' state files go; tmpfs by default, so fsync costs what it costs in memory.
    var stateDirectory = "/dev/shm"
    /// Where snapsized, snapcore-bench and the C helpers are (default: next to this program).
    var programsDirectory: String?

    static let usage = """
        usage: snapsize-bench [--json] [--rounds N] [--state-dir PATH] [--programs DIR]
          --json            one JSON object instead of the table
          --rounds N        rounds with fresh processes (default 15); figures are medians over rounds
          --state-dir PATH  folder for the servers' state files (default /dev/shm; give a disk path to include the disk)
          --programs DIR    where snapsized, snapcore-bench, snapsize-floor and snapsize-a11y-listener are
                            (default: this program's folder)

        """

    static func parse(_ arguments: [String]) throws(BenchError) -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": options.json = true
            case "--rounds":
                guard let value = rest.popFirst(), let rounds = Int(value), rounds >= 1, rounds <= 50 else {
                    throw BenchError("--rounds needs a whole number from 1 to 50")
                }
                options.rounds = rounds
            case "--state-dir":
                guard let value = rest.popFirst(), value.hasPrefix("/") else { throw BenchError("--state-dir needs an absolute path") }
                options.stateDirectory = value
            case "--programs":
                guard let value = rest.popFirst() else { throw BenchError("--programs needs a folder") }
                options.programsDirectory = value
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
