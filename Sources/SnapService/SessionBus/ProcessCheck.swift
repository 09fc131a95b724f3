import DBusKit
#if canImport(Glibc)
    import Glibc
#endif

/// Whether a pid the bus named is still the process that made the connection. The bus learns a
/// client's pid when it connects (SO_PEERCRED) and never again: once that process has exited (having
/// handed its connection to a child, say), the kernel may give the pid to any other process, and
/// /proc/<pid> then describes that one. A bus that gives the process as a pidfd (`ProcessFD`,
/// dbus-daemon 1.15.x and later, dbus-broker) settles it: the pidfd names that one process for as long
/// as it lives, and says when it has exited (`pid(ofPidFD:)`, `hasExited(pidFD:)`). Without one
/// (dbus-daemon 1.14), two things tell such a stranger: it started after the daemon first heard from
/// the connection (/proc/<pid>/stat's start time), or it holds no socket at all, so no connection to
/// any bus.
enum ProcessCheck {
    /// Now, in the clock /proc/<pid>/stat gives start times in: ticks since boot (CLOCK_BOOTTIME).
    static func nowTicks() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * ticksPerSecond + UInt64(now.tv_nsec)
            / (1_000_000_000 / ticksPerSecond)
    }

    private static let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// When `pid` started, in ticks since boot (field 22 of /proc/<pid>/stat); nil when it cannot be read.
    static func startTicks(of pid: UInt32) -> UInt64? {
        guard let bytes = SmallFile.readBytes("/proc/\(pid)/stat", maximumBytes: 4096),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After the command's closing parenthesis (a command may hold spaces and parentheses): field 3 on.
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Whether `pid` holds at least one socket (a link `socket:[…]` in /proc/<pid>/fd); nil when
    /// its descriptors cannot be read (another user's process).
    static func holdsSocket(_ pid: UInt32) -> Bool? {
        let folder = "/proc/\(pid)/fd"
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true else { continue }
            let length = readlink(folder + "/" + name, &target, target.count - 1)
            guard length > 0 else { continue }
            if target.prefix(8).map({ UInt8(bitPattern: $0) }) == Array("socket:[".utf8) { return true }
        }
        return false
    }

    /// When `pid` started, if it may still be the process that made a connection the daemon first
    /// heard from at `heardAt` (`nowTicks()`); nil when it cannot be. Read it again after reading
    /// something of the process (`startTicks(of:)`): the same start time says it is still the same one.
    static func ownerStart(_ pid: UInt32, heardAt: UInt64) -> UInt64? {
        // One tick of slack: a start time is cut to whole ticks, as is `heardAt`.
        guard let started = startTicks(of: pid), started <= heardAt + 1, holdsSocket(pid) == true else {
            return nil
        }
        return started
    }

    /// The pid of the process a pidfd refers to, as this process's /proc counts it (the "Pid:" line of
    /// /proc/self/fdinfo/<fd>); nil when that process has exited (-1), lives in a pid namespace this
    /// one cannot see (0), or /proc cannot tell.
    static func pid(ofPidFD fd: Int32) -> UInt32? {
        guard let bytes = SmallFile.readBytes("/proc/self/fdinfo/\(fd)", maximumBytes: 4096) else {
            return nil
        }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: pidField) {
            let value = line.dropFirst(pidField.count).filter {
                $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t")
            }
            guard let pid = Int64(String(decoding: value, as: UTF8.self)), pid > 0 else { return nil }
            return UInt32(exactly: pid)
        }
        return nil
    }

    private static let pidField = Array("Pid:".utf8)

    /// Whether the process of a pidfd has exited: the pidfd is readable from then on (a zombie's
    /// /proc/<pid> describes no program any more, and once it is reaped its pid may be another's).
    /// A pidfd that cannot be polled counts as exited.
    static func hasExited(pidFD fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 0)
        return ready != 0 || entry.revents != 0
    }
}

/// What the daemon knows of the process that made a connection, to tell whether a command read at
/// its pid is that process's (`ProcessCheck`). Each check reads /proc and runs on `CommandReader`'s
/// thread with the read itself, not on the loop.
enum ConnectionMaker: Sendable {
    /// The bus gave the process as a pidfd: the command is kept when the process has not exited
    /// once it was read (no other process can have had its pid meanwhile).
    case pinned(UnixFD)
    /// The bus gave only the pid: the process must be able to have made the connection the daemon
    /// first heard of at `heardAt` (`ProcessCheck.ownerStart`), and have the same start time after
    /// the read.
    case unpinned(heardAt: UInt64)

    /// The command `read` gives for `pid`, or "" when it may be another process's.
    func command(of pid: UInt32, read: CommandReader.Read) -> String {
        switch self {
        case .pinned(let process):
            let command = read(pid)
            return ProcessCheck.hasExited(pidFD: process.descriptor) ? "" : command
        case .unpinned(let heardAt):
            guard let started = ProcessCheck.ownerStart(pid, heardAt: heardAt) else { return "" }
            let command = read(pid)
            return ProcessCheck.startTicks(of: pid) == started ? command : ""
        }
    }
}
