import Foundation

/// VmRSS of a process, in KiB (from /proc/PID/status).
public func residentKiB(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let value = Int(line.filter(\.isNumber)) else { throw TestFailure("no VmRSS for \(pid)") }
    return value
}

/// Rss and Pss of a process, in KiB (from /proc/PID/smaps_rollup: Pss counts shared pages once
/// per process that maps them, so a flood's own memory shows without the shared libraries' noise).
public func memoryKiB(_ pid: pid_t) throws -> (rss: Int, pss: Int) {
    let rollup = try String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)
    func field(_ name: String) -> Int? {
        rollup.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap { Int($0.filter(\.isNumber)) }
    }
    guard let rss = field("Rss"), let pss = field("Pss") else { throw TestFailure("no Rss/Pss for \(pid)") }
    return (rss, pss)
}
