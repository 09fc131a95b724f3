import Foundation

/// Where the screen-reader side of the Orca tests comes from: this machine (Debian 12, Orca 43),
/// or, with `SNAPSIZE_DESKTOP_ROOT=/var/tmp/snapsize-trixie` (`make test-orca48`), a Debian 13
/// chroot holding Orca 48, at-spi2-core 2.56 and GTK 3. From a chroot run the accessibility bus
/// launcher, the registry, Orca and the GTK window; the buses' sockets and the X socket live under
/// /tmp, which `make test-orca48` bind-mounts into it (with /dev/shm and /proc), so the daemon built
/// here joins them as it would on a Debian 13 desktop.
public enum DesktopRoot {
    /// The chroot, or nil for this machine.
    public static var path: String? {
        ProcessInfo.processInfo.environment["SNAPSIZE_DESKTOP_ROOT"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `program` (an absolute path inside the root) is installed there.
    public static func isInstalled(_ program: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: (path ?? "") + program)
    }

    /// The executable and arguments that run `program` from the root. `chroot` execs the
    /// program, so the child's PID is the program's own and stopping it by PID works as usual.
    public static func command(_ program: String, _ arguments: [String]) -> (
        executable: String, arguments: [String]
    ) {
        guard let path else { return (program, arguments) }
        return ("/usr/sbin/chroot", [path, program] + arguments)
    }

    /// Starts `program` from the root.
    public static func start(
        _ program: String, _ arguments: [String] = [], environment: [String: String],
        stdin: ChildProcess.Input = .null
    ) throws -> ChildProcess {
        let (executable, fullArguments) = command(program, arguments)
        return try ChildProcess(executable, fullArguments, environment: environment, stdin: stdin)
    }
}
