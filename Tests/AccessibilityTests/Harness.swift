import Foundation
import Testing
@_spi(Testing) import DBusKit
import SizeSelectorContract
import TestSupport

/// Debian's interpreter: the pyenv `python3` on PATH has no `gi`, hence no pyatspi.
let systemPython = "/usr/bin/python3"
/// The checked-in client scripts next to this file.
let scriptsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Scripts").path

let selectorName = SelectorBus.name.rawValue
let selectorPath = SelectorBus.path

/// One private desktop: a session bus (activating nothing installed on the machine), an
/// accessibility bus with its registry, and `snapsized` on both. Everything stopped by PID.
final class SliderFixture {
    let bus: PrivateSessionBus
    let stack: AccessibilityStack
    var daemon: ChildProcess?
    /// The project's own D-Bus client on the session bus.
    let client: Connection

    /// `daemonEnvironment` chooses how the daemon finds the accessibility bus: the stack's
    /// environment has AT_SPI_BUS_ADDRESS; `bus.environment` makes it ask org.a11y.Bus.
    /// `daemonLanguage`: the daemon's LANG (the other language variables removed), e.g. "pt_BR.UTF-8".
    /// `activatable`: no daemon is started; the session bus starts it on the first call, from an
    /// activation file as the package installs one (finding the accessibility bus through
    /// org.a11y.Bus, as on a desktop).
    init(
        daemonArguments: [String] = [], useBusAddressVariable: Bool = true,
        sessionExtras: [String: String] = [:],
        daemonLanguage: String? = nil, activatable: Bool = false
    ) throws {
        let services = try makeTemporaryDirectory()
        if activatable {
            guard let snapsized = productPath("snapsized") else {
                throw TestFailure("snapsized is not built")
            }
            try """
            [D-BUS Service]
            Name=\(selectorName)
            Exec=\(([snapsized, "--no-state"] + daemonArguments).joined(separator: " "))

            """.write(toFile: services + "/\(selectorName).service", atomically: true, encoding: .utf8)
        }
        bus = try PrivateSessionBus(serviceDirectories: [services])
        stack = try AccessibilityStack(sessionEnvironment: bus.environment.merging(sessionExtras) { $1 })
        client = try Connection(address: bus.address)
        if activatable { return }
        var daemonEnvironment = useBusAddressVariable ? stack.environment : bus.environment
        if let daemonLanguage {
            daemonEnvironment = withLanguage(daemonEnvironment, LANG: daemonLanguage)
        }
        try startDaemon(daemonArguments, environment: daemonEnvironment)
        _ = try python("inspect_slider.py")  // waits until the application is in the desktop
    }

    deinit {
        daemon?.terminate()
        stack.stop()
        bus.stop()
    }

    func startDaemon(_ arguments: [String], environment: [String: String]) throws {
        daemon = try startSnapsized(arguments, environment: environment)
    }

    /// The PID of whichever snapsized owns the name (one the bus activated, too).
    func ownerPID() throws -> pid_t {
        let reply = try client.call(
            destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
            interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
            arguments: [.string(selectorName)], timeoutMilliseconds: 5000)
        guard let pid = reply.first?.asUInt32 else {
            throw TestFailure("no PID for \(selectorName): \(reply)")
        }
        return pid_t(pid)
    }

    /// Stops the activated snapsized (SIGTERM) and waits until its name and its application are gone,
    /// so that the next call activates a new one.
    func stopActivated() throws {
        let pid = try ownerPID()
        kill(pid, SIGTERM)
        let gone = waitUntil(timeout: 10, interval: 0.02) {
            (try? self.client.nameHasOwner(selectorName, timeoutMilliseconds: 2000)) == false
        }
        guard gone else { throw TestFailure("the activated snapsized (pid \(pid)) kept its name") }
        waitUntil(timeout: 10, interval: 0.1) { (try? self.python("count_apps.py").int("apps")) == 0 }
    }

    /// Runs a checked-in script with Debian's python on this desktop and parses its JSON object.
    func python(_ script: String, _ arguments: [String] = [], timeout: Double = 40) throws -> [String:
        Any]
    {
        try runPython(script, arguments, environment: stack.environment, timeout: timeout)
    }

}

/// Starts the built `snapsized` and waits until it owns its name on the session bus.
/// snapsized without a state file (every test starts from the middle size), on `environment`'s bus.
func startSnapsized(_ arguments: [String], environment: [String: String]) throws -> ChildProcess {
    try startSnapsized(
        ["--no-state"] + arguments, environment: environment,
        busAddress: environment["DBUS_SESSION_BUS_ADDRESS"] ?? "")
}

func pythonEnvironment(_ environment: [String: String]) -> [String: String] {
    var env = environment
    env["PYTHONDONTWRITEBYTECODE"] = "1"  // keep the checked-in folder clean
    env["PYTHONUNBUFFERED"] = "1"
    return env
}

func runPython(_ script: String, _ arguments: [String], environment: [String: String], timeout: Double)
    throws -> [String: Any]
{
    let result = try run(
        systemPython, [scriptsDirectory + "/" + script] + arguments,
        environment: pythonEnvironment(environment), timeout: timeout)
    let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
    guard result.status == 0, let object = try? parseJSONObject(line) else {
        throw TestFailure(
            "\(script) \(arguments) failed with status \(result.status): \(result.stdout) \(result.stderr)"
        )
    }
    return object
}

/// A running `listen.py`: its event lines, read as they arrive.
final class EventListener {
    let child: ChildProcess

    /// `types`: the event types to register (listen.py's default set when empty).
    init(environment: [String: String], types: [String] = []) throws {
        child = try ChildProcess(
            systemPython, [scriptsDirectory + "/listen.py"] + types,
            environment: pythonEnvironment(environment), stdin: .pipe)
        guard
            waitUntil(
                timeout: 20, interval: 0.02, { self.lines.first?["ready"] != nil || !child.isRunning }),
            child.isRunning
        else {
            throw TestFailure("listen.py did not start: \(child.stdout) \(child.stderr)")
        }
    }

    deinit {
        child.closeStdin()
        child.terminate()
    }

    var lines: [[String: Any]] {
        child.stdout.split(separator: "\n").compactMap { try? parseJSONObject(String($0)) }
    }

    /// The events of `type` seen so far.
    func events(_ type: String) -> [[String: Any]] {
        lines.filter { ($0["type"] as? String)?.hasPrefix(type) == true }
    }

    /// Waits until at least `count` events of `type` arrived; returns them.
    @discardableResult
    func waitFor(_ type: String, count: Int, timeout: Double = 10) -> [[String: Any]] {
        waitUntil(timeout: timeout, interval: 0.02) { self.events(type).count >= count }
        return events(type)
    }
}

extension Dictionary where Key == String, Value == Any {
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
    func string(_ key: String) -> String? { self[key] as? String }
    func double(_ key: String) -> Double? { (self[key] as? NSNumber)?.doubleValue }
    func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    func strings(_ key: String) -> [String] { self[key] as? [String] ?? [] }
}
