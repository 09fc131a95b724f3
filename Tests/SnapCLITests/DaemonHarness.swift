import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// A private session bus (activation only from `serviceDirectory`, so nothing installed on the
/// machine, not even org.a11y.Bus, can be started on it) and, unless asked otherwise, a snapsized on it.
final class DaemonFixture {
    let bus: PrivateSessionBus
    let serviceDirectory: String
    private(set) var daemon: ChildProcess?
    var environment: [String: String]

    /// `activatable`: write an org.snapsize.SizeSelector1.service that starts the built snapsized.
    /// `socketName`: the bus listens at `$XDG_RUNTIME_DIR/<socketName>` ("bus": where dbus-user-session puts it).
    init(startDaemon: Bool = true, activatable: Bool = false, daemonArguments: [String] = [],
         socketName: String? = nil) throws {
        guard let snapsized = productPath("snapsized"), productPath("snapsizectl") != nil else {
            throw HarnessError(description: "build snapsized and snapsizectl first (swift build)")
        }
        serviceDirectory = try makeTemporaryDirectory()
        if activatable {
            try """
                [D-BUS Service]
                Name=\(SelectorBus.name.rawValue)
                Exec=\(snapsized) --no-accessibility --no-state

                """.write(toFile: serviceDirectory + "/\(SelectorBus.name.rawValue).service", atomically: true, encoding: .utf8)
        }
        bus = try PrivateSessionBus(serviceDirectories: [serviceDirectory], socketName: socketName)
        environment = bus.environment
        environment["NO_COLOR"] = nil
        if startDaemon { try start(daemonArguments) }
    }

    deinit {
        daemon?.terminate(timeout: 2)
        bus.stop()
        try? FileManager.default.removeItem(atPath: serviceDirectory)
    }

    func start(_ arguments: [String] = []) throws {
        daemon = try startSnapsized(["--no-accessibility", "--no-state"] + arguments, environment: environment,
                                    busAddress: bus.address)
    }

    /// Runs the built snapsizectl against this bus.
    func ctl(_ arguments: [String], environment overrides: [String: String?] = [:]) throws -> Result {
        var environment = self.environment
        for (key, value) in overrides { environment[key] = value }
        let result = try run(productPath("snapsizectl")!, arguments, environment: environment, timeout: 20)
        return Result(status: result.status, out: result.stdout, err: result.stderr)
    }

    /// A client of our own (another "person" on the bus), e.g. to hold a preview.
    func client() throws -> Connection { try Connection(address: bus.address) }

    struct Result {
        let status: Int32
        let out: String
        let err: String
    }
}

extension Connection {
    /// Calls a method of org.snapsize.SizeSelector1 and blocks for the reply.
    @discardableResult
    func selector(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try call(destination: SelectorBus.name.rawValue, path: SelectorBus.path, interface: SelectorBus.interface.rawValue,
                 member: member, arguments: arguments, timeoutMilliseconds: 5000)
    }
}

/// Parses one JSON object with Foundation's parser (not ours), for field-by-field checks.
func parseObject(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let dictionary = object as? [String: Any] else { throw HarnessError(description: "not a JSON object: \(text)") }
    return dictionary
}

/// Track positions of the default sizes 20, 40, 60, 80, 100 (width 336, inset 12, ordinal).
let tick: [Double] = [12, 90, 168, 246, 324]
