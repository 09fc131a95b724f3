import Foundation

/// A throwaway session bus (`dbus-daemon`) with its own runtime, home and config directories.
///
/// Tests never touch the desktop's bus: everything they start gets `environment`, which points
/// at this bus and at private XDG directories. Stopped by PID in `stop()` or `deinit`.
public final class PrivateSessionBus: Sendable {
    /// The address clients connect to, as printed by dbus-daemon.
    public let address: String
    /// The temp directory holding the socket, runtime dir, home and config (`/tmp/ssXXXXXX`).
    public let directory: String
    /// The environment for processes that should use this bus (PATH kept, DISPLAY and AT_SPI_BUS_ADDRESS removed).
    public let environment: [String: String]
    /// The dbus-daemon process.
    public let daemon: ChildProcess

    /// Starts the bus. `serviceDirectories` are D-Bus activation directories (`*.service` files);
    /// when given, the daemon runs with a generated config modelled on session.conf that lists
    /// only those directories, so activation never reaches services installed on the machine.
    /// `extraEnvironment` is added to the bus's own environment (activated services inherit it, e.g. PATH).
    /// `socketName`: listen on `$XDG_RUNTIME_DIR/<socketName>` (e.g. "bus", the dbus-user-session layout)
    /// instead of a random name in it.
    public init(
        serviceDirectories: [String] = [], extraEnvironment: [String: String] = [:],
        socketName: String? = nil,
        timeout: Double = 10
    ) throws {
        let executable = "dbus-daemon"
        directory = try makeTemporaryDirectory()
        let runtime = directory + "/run"
        let home = directory + "/home"
        for path in [
            runtime, home, home + "/.config", home + "/.local/state", home + "/.cache",
            home + "/.local/share"
        ] {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }

        var base = ProcessInfo.processInfo.environment
        for key in [
            "DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS", "DBUS_SESSION_BUS_ADDRESS",
            "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE", "SESSION_MANAGER"
        ] {
            base[key] = nil
        }
        base["PATH"] = base["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        base["XDG_RUNTIME_DIR"] = runtime
        base["HOME"] = home
        base["XDG_CONFIG_HOME"] = home + "/.config"
        base["XDG_STATE_HOME"] = home + "/.local/state"
        base["XDG_CACHE_HOME"] = home + "/.cache"
        base["XDG_DATA_HOME"] = home + "/.local/share"
        base["NO_AT_BRIDGE"] = "1"
        base.merge(extraEnvironment) { _, extra in extra }

        let listen = socketName.map { "unix:path=\(runtime)/\($0)" } ?? "unix:dir=\(runtime)"
        var arguments = ["--nofork", "--print-address=1", "--address=\(listen)"]
        if serviceDirectories.isEmpty {
            arguments.insert("--session", at: 0)
        } else {
            let configPath = directory + "/session.conf"
            try Self.config(serviceDirectories: serviceDirectories, runtime: runtime)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            arguments.insert("--config-file=\(configPath)", at: 0)
        }
        guard
            ProcessInfo.processInfo.environment["PATH"].map({ path in
                path.split(separator: ":").contains {
                    FileManager.default.isExecutableFile(atPath: "\($0)/\(executable)")
                }
            }) ?? FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        else {
            throw TestFailure("dbus-daemon is not installed (apt install dbus-daemon)")
        }

        let child = try ChildProcess(executable, arguments, environment: base)
        var printed = ""
        let ready = waitUntil(timeout: timeout, interval: 0.005) {
            printed = child.stdout
            return printed.contains("\n") || !child.isRunning
        }
        guard ready, child.isRunning, let line = printed.split(separator: "\n").first, !line.isEmpty
        else {
            let stderr = child.stderr
            child.forceKill()
            throw TestFailure("dbus-daemon did not start: \(stderr)")
        }
        daemon = child
        address = String(line)
        base["DBUS_SESSION_BUS_ADDRESS"] = address
        environment = base
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the daemon with SIGTERM (SIGKILL after 2 s). Idempotent.
    public func stop() {
        daemon.terminate(timeout: 2)
    }

    /// SIGKILLs the daemon, for tests of a bus that vanishes.
    public func kill() {
        daemon.forceKill()
    }

    /// A bus configuration like /usr/share/dbus-1/session.conf, minus the machine's service
    /// directories and include files. Its limits are session.conf's: dbus-daemon's own defaults
    /// (128 calls awaiting a reply per connection, among others) refuse a flood that the real
    /// session bus delivers, and a test of a flood on them proves nothing.
    static func config(serviceDirectories: [String], runtime: String) -> String {
        let services = serviceDirectories.map { "  <servicedir>\(xmlText($0))</servicedir>" }.joined(
            separator: "\n")
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <keep_umask/>
              <listen>unix:dir=\(xmlText(runtime))</listen>
              <auth>EXTERNAL</auth>
            \(services)
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_incoming_unix_fds">250000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <limit name="max_outgoing_unix_fds">250000000</limit>
              <limit name="max_message_size">1000000000</limit>
              <limit name="service_start_timeout">10000</limit>
              <limit name="auth_timeout">30000</limit>
              <limit name="pending_fd_timeout">150000</limit>
              <limit name="max_completed_connections">100000</limit>
              <limit name="max_incomplete_connections">10000</limit>
              <limit name="max_connections_per_user">100000</limit>
              <limit name="max_pending_service_starts">10000</limit>
              <limit name="max_names_per_connection">50000</limit>
              <limit name="max_match_rules_per_connection">50000</limit>
              <limit name="max_replies_per_connection">50000</limit>
            </busconfig>

            """
    }

    private static func xmlText(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
