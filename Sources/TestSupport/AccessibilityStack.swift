import DBusKit
import Foundation
import Synchronization

/// An AT-SPI2 accessibility bus on a `PrivateSessionBus`: `at-spi-bus-launcher` (which owns
/// `org.a11y.Bus` and runs the accessibility dbus-daemon) plus `at-spi2-registryd`, both started
/// here and stopped by PID. The registry can be killed and restarted to test re-registration.
public final class AccessibilityStack: Sendable {
    public static let launcherPath = "/usr/libexec/at-spi-bus-launcher"
    public static let registryPath = "/usr/libexec/at-spi2-registryd"

    /// The accessibility bus address (what `org.a11y.Bus.GetAddress` returns).
    public let address: String
    /// The session environment plus `AT_SPI_BUS_ADDRESS`.
    public let environment: [String: String]
    public let launcher: ChildProcess
    private let registry = Mutex<ChildProcess?>(nil)

    /// Starts the launcher with `sessionEnvironment` (a `PrivateSessionBus.environment`, plus
    /// DISPLAY when an X server should be told about the bus) and, unless `startRegistry` is
    /// false, the registry.
    public init(sessionEnvironment: [String: String], startRegistry: Bool = true, timeout: Double = 10)
        throws
    {
        for path in [Self.launcherPath, Self.registryPath] where !DesktopRoot.isInstalled(path) {
            throw TestFailure("\(DesktopRoot.path ?? "")\(path) is missing (apt install at-spi2-core)")
        }
        let launcher = try DesktopRoot.start(
            Self.launcherPath, ["--launch-immediately", "--a11y=1"],
            environment: sessionEnvironment)
        self.launcher = launcher
        var found: String?
        waitUntil(timeout: timeout, interval: 0.05) {
            let reply = try? run(
                "gdbus",
                [
                    "call", "--session", "--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus",
                    "--method", "org.a11y.Bus.GetAddress"
                ], environment: sessionEnvironment, timeout: 5)
            found = reply.flatMap {
                $0.status == 0 ? AccessibilityStack.parseStringReply($0.stdout) : nil
            }
            return found != nil || !launcher.isRunning
        }
        guard let found else {
            let log = launcher.stderr
            launcher.terminate()
            throw TestFailure("at-spi-bus-launcher gave no address within \(timeout) s: \(log)")
        }
        address = found
        var environment = sessionEnvironment
        environment["AT_SPI_BUS_ADDRESS"] = found
        self.environment = environment
        if startRegistry {
            do { try self.startRegistry(timeout: timeout) } catch { stop(); throw error }
        }
    }

    deinit { stop() }

    /// Starts `at-spi2-registryd` and waits until `org.a11y.atspi.Registry` has an owner.
    ///
    /// A client that calls the registry first makes the accessibility bus start one by activation
    /// (as on a desktop); ours then exits, and the activated one, a child of that bus, ends with it.
    public func startRegistry(timeout: Double = 10) throws {
        let child = try DesktopRoot.start(Self.registryPath, environment: environment)
        registry.withLock { $0 = child }
        guard waitUntil(timeout: timeout, interval: 0.02, { nameHasOwner("org.a11y.atspi.Registry") })
        else {
            throw TestFailure("at-spi2-registryd did not take its name: \(child.stderr)")
        }
    }

    /// SIGKILLs the registry we started and waits until its name is gone from the bus.
    public func killRegistry(timeout: Double = 10) {
        let child = registry.withLock { child in
            defer { child = nil }; return child
        }
        child?.forceKill()
        waitUntil(timeout: timeout, interval: 0.02) { !nameHasOwner("org.a11y.atspi.Registry") }
    }

    /// SIGSTOPs the registry we started: it keeps its name and answers nothing, as a registry slow
    /// to start does. Undone by `resumeRegistry()` (and by `stop()`).
    public func stopRegistry() {
        registry.withLock { child in if let child { kill(child.pid, SIGSTOP) } }
    }

    /// SIGCONTs the registry we started.
    public func resumeRegistry() {
        registry.withLock { child in if let child { kill(child.pid, SIGCONT) } }
    }

    /// Whether `name` has an owner on the accessibility bus.
    public func nameHasOwner(_ name: String) -> Bool {
        guard let connection = try? Connection(address: address) else { return false }
        defer { connection.close() }
        return (try? connection.nameHasOwner(name, timeoutMilliseconds: 5000)) == true
    }

    /// Stops the registry, then the launcher (which stops its bus). Idempotent.
    public func stop() {
        resumeBus()  // a stopped bus would not see the launcher's SIGTERM
        resumeRegistry()
        registry.withLock { child in
            child?.terminate(); child = nil
        }
        launcher.terminate()
    }

    /// The accessibility bus itself: the dbus-daemon our launcher started (its child).
    public var busPID: pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.lazy.compactMap { pid_t($0) }.first { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.range(of: ") ", options: .backwards)
            else { return false }
            let fields = stat[close.upperBound...].split(separator: " ")
            return stat.contains("(dbus-daemon)") && fields.count > 1 && pid_t(fields[1]) == launcher.pid
        }
    }

    /// SIGSTOPs the accessibility bus: it keeps its connections and answers nothing, as a wedged
    /// bus does. Undone by `resumeBus()` (and by `stop()`).
    public func stopBus() {
        if let pid = busPID { kill(pid, SIGSTOP) }
    }

    /// SIGCONTs the accessibility bus.
    public func resumeBus() {
        if let pid = busPID { kill(pid, SIGCONT) }
    }

    /// `('text',)` as gdbus prints a one-string reply -> `text`.
    static func parseStringReply(_ output: String) -> String? {
        let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("('"), trimmed.hasSuffix("',)") else { return nil }
        let text = String(trimmed.dropFirst(2).dropLast(3))
        return text.isEmpty ? nil : text
    }
}
