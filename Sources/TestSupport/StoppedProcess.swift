import Foundation

/// Whether `pid` is stopped (SIGSTOP: state T in /proc/PID/stat), so that what a test sends it
/// next is certainly not read before it is resumed.
public func isStopped(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let afterName = stat.range(of: ") ", options: .backwards) else { return false }
    return stat[afterName.upperBound...].first == "T"
}
