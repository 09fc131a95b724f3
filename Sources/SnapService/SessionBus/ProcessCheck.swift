import DBusKit
import SystemCalls
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
/// any bus; and what is read after those checks is read through the same open /proc/<pid>
/// (`ProcessFolder`), which no later process with that pid can answer.
enum ProcessCheck {
    /// Now, in the clock /proc/<pid>/stat gives start times in: ticks since boot (CLOCK_BOOTTIME).
    static func nowTicks() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * ticksPerSecond + UInt64(now.tv_nsec)
            / (1_000_000_000 / ticksPerSecond)
    }

    private static let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))

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

/// What the bus said of the process that made a connection, and how to tell whether a command read
/// at its pid is that process's (`ProcessCheck`). Each check reads /proc and runs on
/// `CommandReader`'s thread with the read itself, not on the loop.
enum ConnectionMaker: Sendable {
    /// The bus gave the process as a pidfd (and its pid as the bus's namespace counts it): the
    /// command is kept when the process has not exited once it was read (no other process can have
    /// had its pid meanwhile).
    case pinned(UnixFD, busPid: UInt32)
    /// The bus gave only the pid: the process must be able to have made the connection the daemon
    /// first heard of at `heardAt`: started by then (one tick of slack: a start time is cut to
    /// whole ticks, as is `heardAt`), holding a socket. Everything is read through one
    /// `ProcessFolder`, so the command read is that same process's.
    case unpinned(pid: UInt32, heardAt: UInt64)

    /// From the bus's answer to `GetConnectionCredentials` (its `ProcessFD` where it gives one, else
    /// its `ProcessID`); nil when it names no process (a client that left first, a bus that did not
    /// answer).
    init?(credentials: [String: DBusValue], heardAt: UInt64) {
        let pid = credentials["ProcessID"]?.asUInt32 ?? 0
        if let process = credentials["ProcessFD"]?.asUnixFD {
            self = .pinned(process, busPid: pid)
        } else if pid != 0 {
            self = .unpinned(pid: pid, heardAt: heardAt)
        } else {
            return nil
        }
    }

    /// The pid the bus gave.
    var pid: UInt32 {
        switch self {
        case .pinned(_, let busPid): busPid
        case .unpinned(let pid, _): pid
        }
    }

    /// The pid as this daemon's /proc counts it and the command `read` gives for it, "" when it may
    /// be another process's. A pidfd whose process is gone keeps the pid the bus gave. `noting`
    /// is told the pid before anything of the process is read (a read may never end).
    func identify(read: CommandReader.Read, noting: (UInt32) -> Void) -> (pid: UInt32, command: String) {
        switch self {
        case .pinned(let process, let busPid):
            guard let pid = ProcessCheck.pid(ofPidFD: process.descriptor) else { return (busPid, "") }
            noting(pid)
            guard let folder = ProcessFolder(pid) else { return (pid, "") }
            defer { folder.close() }
            let command = read(folder)
            return (pid, ProcessCheck.hasExited(pidFD: process.descriptor) ? "" : command)
        case .unpinned(let pid, let heardAt):
            noting(pid)
            guard let folder = ProcessFolder(pid) else { return (pid, "") }
            defer { folder.close() }
            guard let started = folder.startTicks(), started <= heardAt + 1, folder.holdsSocket() == true
            else { return (pid, "") }
            return (pid, read(folder))
        }
    }
}

/// /proc/<pid> held open, so that what is read through it is one process's: once that process has
/// been reaped, opening anything through the folder fails (ESRCH), even when its pid is another
/// process's by then, where /proc/<pid> by name would describe the new one. One open of the
/// folder, then a file at a time relative to it, is also less work for the kernel than a path
/// looked up afresh for each file.
struct ProcessFolder: Sendable {
    let pid: UInt32
    /// The open folder; -1 when not opened (a test's reader, which reads nothing through it).
    let descriptor: Int32

    init(pid: UInt32, descriptor: Int32) {
        self.pid = pid
        self.descriptor = descriptor
    }

    /// Opens /proc/<pid>; nil when there is no such process (or /proc cannot tell).
    init?(_ pid: UInt32) {
        let descriptor = POSIX.open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(pid: pid, descriptor: descriptor)
    }

    func close() {
        if descriptor >= 0 { _ = POSIX.close(descriptor) }
    }

    /// Up to `maximumBytes` of the file `name` in the folder (`cmdline`, `stat`); nil when it
    /// cannot be read, as once the process has gone.
    func readBytes(_ name: String, maximumBytes: Int) -> [UInt8]? {
        SmallFile.readBytes(name, in: descriptor, maximumBytes: maximumBytes)
    }

    /// When the process started, in ticks since boot (field 22 of `stat`); nil when it cannot be read.
    func startTicks() -> UInt64? {
        let fd = POSIX.open(at: descriptor, "stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = POSIX.close(fd) }
        // One read: the kernel writes the line whole (a command is at most 16 bytes, so it fits).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.statBytes) { buffer in
            let count = POSIX.read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return nil }
            let line = UnsafeBufferPointer(rebasing: buffer[..<count])
            // After the command's closing parenthesis (a command may hold spaces and parentheses):
            // field 3 on, so field 22 follows the 20th space.
            guard let close = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
            var spaces = 0, index = close + 1
            while index < line.count, spaces < 20 {
                if line[index] == UInt8(ascii: " ") { spaces += 1 }
                index += 1
            }
            var ticks: UInt64 = 0, digits = 0
            while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9")
            {
                let (times, over) = ticks.multipliedReportingOverflow(by: 10)
                let (sum, overAgain) = times.addingReportingOverflow(
                    UInt64(line[index] - UInt8(ascii: "0")))
                guard !over, !overAgain else { return nil }
                ticks = sum
                digits += 1
                index += 1
            }
            return spaces == 20 && digits > 0 ? ticks : nil
        }
    }

    /// Room for the whole of /proc/<pid>/stat: 52 numbers and a command of at most 16 bytes.
    private static let statBytes = 1024

    /// Whether the process holds at least one socket (a link `socket:[…]` in `fd`); nil when its
    /// descriptors cannot be read (another user's process). A client's connection is usually one of
    /// its first descriptors after 0, 1 and 2: those are tried by number first, since listing the
    /// folder and reading each link before them costs more than that; then the whole folder.
    func holdsSocket() -> Bool? {
        for link in Self.likelyDescriptors {
            let named = link.utf8Start.withMemoryRebound(
                to: CChar.self, capacity: link.utf8CodeUnitCount
            ) {
                Self.linksSocket(descriptor, $0)
            }
            if named { return true }
        }
        let fds = POSIX.open(at: descriptor, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fds >= 0 else { return nil }
        guard let directory = fdopendir(fds) else {
            _ = POSIX.close(fds)
            return nil
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let named = withUnsafeBytes(of: &entry.pointee.d_name) { bytes in
                let name = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
                // Not "." and "..": the descriptors' names are numbers.
                return name[0] >= 0x30 && name[0] <= 0x39 && Self.linksSocket(fds, name)
            }
            if named { return true }
        }
        return false
    }

    /// Whether the link `name` in the open folder `folder` names a socket.
    private static func linksSocket(_ folder: Int32, _ name: UnsafePointer<CChar>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { target in
            let length = target.withMemoryRebound(to: CChar.self) {
                readlinkat(folder, name, $0.baseAddress!, $0.count)
            }
            return length >= socketPrefix.count && target.starts(with: socketPrefix)
        }
    }

    private static let likelyDescriptors: [StaticString] = ["fd/3", "fd/4", "fd/5", "fd/6"]
    private static let socketPrefix = Array("socket:[".utf8)
}
