import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Whether `pid` is stopped (SIGSTOP: state T in /proc/PID/stat), so that what a test sends it
/// next is certainly not read before it is resumed.
public func isStopped(_ pid: pid_t) -> Bool { processState(pid) == "T" }

/// Whether `pid` sleeps in a system call (waiting for something: a reply, a poll).
public func sleepsInSystemCall(_ pid: pid_t) -> Bool {
    processState(pid) == "S" && systemCall(pid) != nil
}

/// The state letter of /proc/PID/stat (R running, S sleeping, T stopped …).
func processState(_ pid: pid_t) -> Character? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let afterName = stat.range(of: ") ", options: .backwards)
    else { return nil }
    return stat[afterName.upperBound...].first
}

/// The system call `pid` is in (its number, from /proc/PID/syscall), nil when it runs in user space.
func systemCall(_ pid: pid_t) -> String? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8),
        let first = text.split(separator: " ").first, first != "running", first != "-1"
    else { return nil }
    return String(first)
}

/// Stops `pid` (an event loop) with SIGSTOP at a moment it waits in poll, idle, never part-way
/// through a round: everything that reaches it while stopped is then seen by one poll after
/// SIGCONT. The call it idles in is the one it sleeps in; a stop that lands elsewhere is undone
/// and tried again. False if that never happened within `timeout` seconds. Where /proc/PID/syscall
/// cannot be read (ptrace restrictions), it only stops `pid`.
public func stopWhileIdle(_ pid: pid_t, timeout: Double = 10) -> Bool {
    guard (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) != nil else {
        kill(pid, SIGSTOP)
        return waitUntil(timeout: timeout) { isStopped(pid) }
    }
    var idle: String?
    guard
        waitUntil(
            timeout: timeout,
            { () -> Bool in
                guard processState(pid) == "S", let call = systemCall(pid), processState(pid) == "S"
                else { return false }
                idle = call
                return true
            }), let idle
    else { return false }
    return waitUntil(timeout: timeout, interval: 0.02) {
        kill(pid, SIGSTOP)
        if waitUntil(timeout: 5, { isStopped(pid) }), systemCall(pid) == idle { return true }
        kill(pid, SIGCONT)
        return false
    }
}

/// Whether `pid` has ended: gone, or a zombie its parent has not reaped yet (so a test can stop
/// signalling it before `ChildProcess` reaps it and the number could name another process).
public func hasEnded(_ pid: pid_t) -> Bool {
    let state = processState(pid)
    return state == nil || state == "Z"
}
