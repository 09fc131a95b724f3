import Foundation
#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// `posix_spawn` with an EMPTY signal mask and default dispositions for the signals tests send.
///
/// This is why the test helpers do not use Foundation's Process: a child started from a Swift
/// Testing worker thread inherits that thread's mask, with SIGTERM blocked, and then never stops
/// (swift-corelibs-foundation #4772).
/// `fileActions` sets up the child's descriptors; `newSession` runs it in a session of its own.
/// Returns the child's PID, or throws with posix_spawn's error code.
func spawnWithCleanSignals(
    _ executable: String, _ arguments: [String], environment: [String: String],
    newSession: Bool = false,
    fileActions: (inout posix_spawn_file_actions_t) -> Void
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    fileActions(&actions)

    var attributes = cleanSignalAttributes(newSession: newSession)
    defer { posix_spawnattr_destroy(&attributes) }

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    // posix_spawnp would search the *parent's* PATH; resolve against the child's environment instead.
    let resolved = resolveExecutable(executable, path: environment["PATH"] ?? "/usr/bin:/bin")
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, resolved, &actions, &attributes, argv, envp)
    guard rc == 0 else { throw TestFailure("could not start \(executable)", errno: rc) }
    return pid
}

/// posix_spawn attributes for a child with an empty signal mask and default dispositions for the
/// signals tests send (see `spawnWithCleanSignals`); the caller destroys them.
public func cleanSignalAttributes(newSession: Bool = false) -> posix_spawnattr_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signo in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signo) }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID, which Glibc's Swift overlay does not export
    posix_spawnattr_setflags(
        &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newSession ? setsid : 0)))
    return attributes
}

/// waitpid on our own child only. The exit status (128 + signal for a signal) is remembered in
/// `stored`, so a PID is never waited for twice or mistaken for a reused one.
func reapChild(_ pid: pid_t, blocking: Bool, stored: inout Int32?) -> Int32? {
    if let stored { return stored }
    var status: Int32 = 0
    var rc: pid_t
    repeat {
        rc = waitpid(pid, &status, blocking ? 0 : WNOHANG)
    } while rc < 0 && errno == EINTR
    guard rc == pid else { return nil }
    let signal = status & 0x7f
    let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    stored = code
    return code
}
