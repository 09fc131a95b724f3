import Foundation

/// VmRSS of a process, in KiB (from /proc/PID/status).
public func residentKiB(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let value = Int(line.filter(\.isNumber))
    else { throw TestFailure("no VmRSS for \(pid)") }
    return value
}

/// Rss, Pss and the anonymous part of Pss of a process, in KiB (from /proc/PID/smaps_rollup). Pss
/// counts a shared page once per process that maps it, so it moves when other processes map the same
/// libraries (tests running in parallel); Pss_Anon is the process's own heap and stacks, what a
/// queue that grows makes grow.
public func memoryKiB(_ pid: pid_t) throws -> (rss: Int, pss: Int, anonymous: Int) {
    let rollup = try String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)
    func field(_ name: String) -> Int? {
        rollup.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap {
            Int($0.filter(\.isNumber))
        }
    }
    guard let rss = field("Rss"), let pss = field("Pss"), let anonymous = field("Pss_Anon") else {
        throw TestFailure("no Rss/Pss for \(pid)")
    }
    return (rss, pss, anonymous)
}
