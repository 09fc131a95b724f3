import Foundation
import Synchronization
#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A child process whose stdin, stdout and stderr are the slave side of a fresh pseudo-terminal,
/// which is also its controlling terminal (it runs in a new session). The test holds the master:
/// `send` types keys, `output` is everything the child wrote (both streams, as a terminal shows them).
///
/// The test also keeps a slave descriptor open (without making it its own controlling terminal), so
/// the child's last output is never lost when it exits, and `terminalAttributes()` can check that the
/// child left the terminal the way it found it.
public final class TerminalProcess: Sendable {
    public let pid: pid_t
    private let master: Int32
    private let slave: Int32
    private let collected = Mutex<[UInt8]>([])
    private let exitStatus = Mutex<Int32?>(nil)

    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String],
        columns: UInt16 = 100, rows: UInt16 = 30
    ) throws {
        // posix_openpt/grantpt/unlockpt/ptsname are hidden from Swift behind _XOPEN_SOURCE; on Linux they are
        // /dev/ptmx plus two ioctls (TIOCSPTLCK to unlock, TIOCGPTN for the number), which is all they do.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw TestFailure("could not open /dev/ptmx", errno: errno) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        guard ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            let code = errno
            close(master)
            throw TestFailure("could not unlock the pseudo-terminal", errno: code)
        }
        let slavePath = "/dev/pts/\(number)"
        let slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            let code = errno
            close(master)
            throw TestFailure("could not open \(slavePath)", errno: code)
        }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)

        let childPID: pid_t
        do {
            // glibc runs setsid before the file actions, so opening the slave (without O_NOCTTY) in the
            // new session makes it the child's controlling terminal.
            childPID = try spawnWithCleanSignals(
                executable, arguments, environment: environment, newSession: true
            ) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
                posix_spawn_file_actions_adddup2(&actions, 0, 1)
                posix_spawn_file_actions_adddup2(&actions, 0, 2)
            }
        } catch {
            close(master)
            close(slave)
            throw error
        }
        pid = childPID
        self.master = master
        self.slave = slave
    }

    deinit {
        if exitStatus.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
        close(master)
        close(slave)
    }

    /// Types `text` (keys as the terminal would send them: "\u{1B}[C" is Right, "\r" is Enter).
    public func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { usleep(1000); continue }
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Everything the child wrote so far, with the terminal's "\r\n" turned back into "\n".
    public var output: String {
        drain()
        let text = collected.withLock { String(decoding: $0, as: UTF8.self) }
        return text.replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// Waits until `output` contains `text`; returns whether it did within `timeout` seconds.
    @discardableResult
    public func waitForOutput(containing text: String, timeout: Double = 10) -> Bool {
        waitUntil(timeout: timeout, interval: 0.005) { output.contains(text) }
    }

    /// Waits for the child to exit; its exit status (128 + signal when killed), or nil after `timeout`.
    public func waitForExit(timeout: Double = 10) -> Int32? {
        var status: Int32?
        waitUntil(timeout: timeout, interval: 0.005) {
            drain()
            status = reap(blocking: false)
            return status != nil
        }
        drain()
        return status
    }

    /// Sends `signal` to the child.
    public func signal(_ signo: Int32) {
        if exitStatus.withLock({ $0 }) == nil { kill(pid, signo) }
    }

    /// The terminal's current settings, as the child left them (or set them).
    public func terminalAttributes() -> termios {
        var attributes = termios()
        _ = tcgetattr(slave, &attributes)
        return attributes
    }

    private func drain() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            collected.withLock { $0 += chunk[..<n] }
        }
    }

    private func reap(blocking: Bool) -> Int32? {
        exitStatus.withLock { reapChild(pid, blocking: blocking, stored: &$0) }
    }
}
