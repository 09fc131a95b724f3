import Foundation
import Synchronization
import SystemCalls
#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A child process started with `posix_spawnp`, for tests.
///
/// Not `Foundation.Process`: children it starts from Swift Testing's worker threads inherit a
/// signal mask with SIGTERM blocked and never stop (swift-corelibs-foundation #4772). Here the
/// child always gets an empty mask and default dispositions.
/// Output goes to files in a private temp dir, so nothing can fill up a pipe and block the child.
public final class ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case null
        case file(String)
        /// A pipe; write with `writeToStdin(_:)`, finish with `closeStdin()`.
        case pipe
    }

    /// Where the child's standard error goes.
    public enum Output: Sendable {
        /// The file at `stderrPath`.
        case file
        /// A pipe whose reading end is already closed (its reader went away): every write to it
        /// fails with EPIPE, or raises SIGPIPE.
        case closedPipe
    }

    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private let outputDirectory: String
    private let stdinWriteFD: Mutex<Int32>
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` (looked up in `environment["PATH"]` when it has no `/`).
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String],
        stdin: Input = .null, stderr: Output = .file
    ) throws {
        outputDirectory = try makeTemporaryDirectory()
        stdoutPath = outputDirectory + "/stdout"
        stderrPath = outputDirectory + "/stderr"

        var pipeWrite: Int32 = -1
        var pipeRead: Int32 = -1
        if case .pipe = stdin {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else {
                throw TestFailure("could not start \(executable)", errno: errno)
            }
            pipeRead = fds[0]
            pipeWrite = fds[1]
            _ = fcntl(pipeWrite, F_SETFD, FD_CLOEXEC)
        }
        var readerless: [Int32] = [-1, -1]
        if case .closedPipe = stderr {
            guard pipe(&readerless) == 0 else {
                throw TestFailure("could not start \(executable)", errno: errno)
            }
            for fd in readerless { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        defer { for fd in readerless where fd >= 0 { close(fd) } }
        let (stdoutPath, stderrPath, readEnd, stderrPipe) = (
            self.stdoutPath, self.stderrPath, pipeRead, readerless[1]
        )
        let childPID: pid_t
        do {
            childPID = try spawnWithCleanSignals(executable, arguments, environment: environment) {
                actions in
                switch stdin {
                case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
                case .pipe:
                    posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
                    posix_spawn_file_actions_addclose(&actions, readEnd)
                }
                posix_spawn_file_actions_addopen(
                    &actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                if stderrPipe >= 0 {
                    posix_spawn_file_actions_adddup2(&actions, stderrPipe, 2)
                } else {
                    posix_spawn_file_actions_addopen(
                        &actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                }
            }
        } catch {
            if pipeRead >= 0 { close(pipeRead) }
            if pipeWrite >= 0 { close(pipeWrite) }
            throw error
        }
        if pipeRead >= 0 { close(pipeRead) }
        pid = childPID
        stdinWriteFD = Mutex(pipeWrite)
    }

    deinit {
        _ = terminate(timeout: 2)
        closeStdin()
        try? FileManager.default.removeItem(atPath: outputDirectory)
    }

    /// What the child wrote to stdout so far.
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What the child wrote to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Writes to the child's stdin pipe (only with `stdin: .pipe`).
    public func writeToStdin(_ text: String) {
        stdinWriteFD.withLock { fd in
            guard fd >= 0 else { return }
            _ = POSIX.writeAll(fd, text)  // a child that closed its stdin does not want the rest
        }
    }

    /// Closes the stdin pipe so the child sees end-of-file.
    public func closeStdin() {
        stdinWriteFD.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// True until the child has exited (and has been reaped by us).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Blocks until the child exits; returns its exit code, or 128 + signal number when killed.
    @discardableResult
    public func wait() -> Int32 {
        reap(blocking: true) ?? -1
    }

    /// SIGTERM, wait up to `timeout` seconds, then SIGKILL. Always reaps. Returns the exit status.
    @discardableResult
    public func terminate(timeout: Double = 2) -> Int32 {
        if let status = reap(blocking: false) { return status }
        kill(pid, SIGTERM)
        if waitUntil(timeout: timeout, interval: 0.01, { !self.isRunning }),
            let status = reap(blocking: false)
        {
            return status
        }
        return forceKill()
    }

    /// SIGKILL and reap. Returns the exit status.
    @discardableResult
    public func forceKill() -> Int32 {
        if let status = reap(blocking: false) { return status }
        kill(pid, SIGKILL)
        return wait()
    }

    private func reap(blocking: Bool) -> Int32? {
        exitStatus.withLock { reapChild(pid, blocking: blocking, stored: &$0) }
    }
}

/// Runs a command to completion (or kills it at `timeout`) and returns its status and output.
/// A child killed at the timeout reports status -1 and a note on stderr.
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String],
    timeout: Double = 20
) throws -> (status: Int32, stdout: String, stderr: String) {
    let child = try ChildProcess(executable, arguments, environment: environment)
    if waitUntil(timeout: timeout, interval: 0.005, { !child.isRunning }) {
        let status = child.wait()
        return (status, child.stdout, child.stderr)
    }
    child.forceKill()
    return (-1, child.stdout, child.stderr + "\n[TestSupport] \(executable) killed after \(timeout) s\n")
}

/// Creates a fresh, private directory with a short name (`/tmp/ssXXXXXX`), so unix socket paths
/// inside it stay well below the 108-byte limit.
public func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/ssXXXXXX".utf8CString)
    guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed", errno: errno) }
    return String(cString: result)
}

func resolveExecutable(_ name: String, path: String) -> String {
    guard !name.contains("/") else { return name }
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return name
}
