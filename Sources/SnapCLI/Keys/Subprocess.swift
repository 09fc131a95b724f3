internal import CPOSIX
#if canImport(Glibc)
    import Glibc
#endif

/// Runs another program to completion and returns what it printed: for `keys`, which reads and
/// writes the desktop's settings through their own tool (`gsettings`), rather than linking GIO into
/// snapsizectl, whose start-up every key press pays for.
struct Subprocess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The program, found on `environment`'s PATH (nil when it is not there).
    static func find(_ name: String, environment: [String: String]) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = folder + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` and `environment`, standard input from /dev/null, with a
    /// clean signal mask and default handlers. Nil when it could not be started.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String])
        -> Result?
    {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { return nil }
        guard pipe(&errors) == 0 else { close(output[0]); close(output[1]); return nil }
        defer { close(output[0]); close(errors[0]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        for fd in [output[0], output[1], errors[0], errors[1]] {
            posix_spawn_file_actions_addclose(&actions, fd)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(output[1])
        close(errors[1])
        guard spawned == 0 else { return nil }

        let (stdout, stderr) = readBoth(output[0], errors[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && cposix_errno() == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import (macros).
        let exited = status & 0x7f == 0
        return Result(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Both pipes to their end, read in turns, so that neither fills while the other is waited on.
    private static func readBoth(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var results: [[UInt8]] = [[], []]
        var fds = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0),
            pollfd(fd: second, events: Int16(POLLIN), revents: 0)
        ]
        var buffer = [UInt8](repeating: 0, count: 16384)
        while fds.contains(where: { $0.fd >= 0 }) {
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if cposix_errno() == EINTR { continue }
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = read(fds[index].fd, &buffer, buffer.count)
                if count > 0 {
                    results[index] += buffer[..<count]
                } else if count == 0 || cposix_errno() != EINTR {
                    fds[index].fd = -1
                }
            }
        }
        return (results[0], results[1])
    }
}
