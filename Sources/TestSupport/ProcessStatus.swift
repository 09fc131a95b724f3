import Foundation

/// VmRSS of a process, in KiB (from /proc/PID/status).
public func residentKiB(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let value = Int(line.filter(\.isNumber)) else { throw TestFailure("no VmRSS for \(pid)") }
    return value
}
