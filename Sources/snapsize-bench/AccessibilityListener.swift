import Glibc
import TestSupport
import SystemCalls

/// Benchmarks/listener/listener.c running on the accessibility bus: a libatspi client subscribed to
/// object:property-change:accessible-value and to what is spoken (object:announcement, a notification
/// shown) that writes each event's kind and CLOCK_MONOTONIC time to a pipe.
final class AccessibilityListener {
    private let process: ChildProcess
    private let readFD: Int32
    private var buffered: [UInt8] = []

    init(program: String, environment: [String: String]) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw BenchError("pipe failed") }
        // Only the write end goes to the child; nothing else is spawned before it is closed here.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        do {
            process = try ChildProcess(program, [String(fds[1])], environment: environment)
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        readFD = fds[0]
        guard nextLine(timeout: 10) == "ready" else {
            let log = process.stderr
            process.forceKill()
            close(readFD)
            throw BenchError("the accessibility listener did not start: \(log)")
        }
    }

    deinit {
        process.terminate(timeout: 2)
        close(readFD)
    }

    enum Kind: String { case value, speech }

    /// The time stamp of the next event of `kind` (others are skipped), or nil after `timeout`
    /// seconds without one.
    func nextEvent(_ kind: Kind, timeout: Double) -> Double? {
        let deadline = monotonicNow() + timeout
        while let line = nextLine(timeout: max(0, deadline - monotonicNow())) {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == kind.rawValue, let time = Double(fields[1]) {
                return time
            }
        }
        return nil
    }

    /// Forgets events already written (e.g. from a warm-up).
    func drain() {
        while nextLine(timeout: 0) != nil {}
    }

    private func nextLine(timeout: Double) -> String? {
        let deadline = monotonicNow() + timeout
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let left = max(0, deadline - monotonicNow())
            var descriptor = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((left * 1000).rounded(.up))) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(readFD, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffered += chunk[..<count]
        }
    }
}
