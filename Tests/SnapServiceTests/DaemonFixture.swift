import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

let busName = SelectorBus.name.rawValue
let objectPath = SelectorBus.path
let interfaceName = SelectorBus.interface.rawValue
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A private session bus with a real `snapsized` on it (never the desktop's bus).
final class DaemonFixture {
    let bus: PrivateSessionBus
    private(set) var daemon: ChildProcess?
    let stateFile: String

    init(_ arguments: [String] = [], startDaemon: Bool = true) throws {
        bus = try PrivateSessionBus()
        stateFile = bus.directory + "/home/.local/state/snapsize/state"
        if startDaemon { try start(arguments) }
    }

    var environment: [String: String] { bus.environment }

    static var snapsized: String {
        get throws {
            guard let path = productPath("snapsized") else {
                throw FixtureError(description: "snapsized is not built in \(productsDirectory); run `swift build` first")
            }
            return path
        }
    }

    /// Starts snapsized (without the accessibility side unless asked) and waits until it owns its name.
    func start(_ arguments: [String] = [], accessibility: Bool = false) throws {
        let flags = (accessibility ? [] : ["--no-accessibility"]) + arguments
        daemon = try startSnapsized(flags, environment: environment, busAddress: bus.address)
    }

    /// SIGTERM, and the exit status.
    @discardableResult
    func stop() -> Int32 {
        defer { daemon = nil }
        return daemon?.terminate(timeout: 5) ?? -1
    }

    func client() throws -> Client { try Client(address: bus.address) }

    /// Runs a command-line tool against this bus.
    func tool(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(executable, arguments, environment: environment)
    }

    func dbusSend(_ member: String, _ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try tool("dbus-send", ["--session", "--print-reply", "--dest=\(busName)", objectPath.rawValue,
                               member.contains(".") ? member : "\(interfaceName).\(member)"] + arguments)
    }

    func gdbusCall(_ member: String, _ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try tool("gdbus", ["call", "--session", "--dest", busName, "--object-path", objectPath.rawValue,
                           "--method", member.contains(".") ? member : "\(interfaceName).\(member)"] + arguments)
    }

    deinit {
        daemon?.terminate(timeout: 5)
    }
}

/// A client connection owned by the test's thread, with its own loop to receive signals.
final class Client {
    let connection: Connection
    let loop = EventLoop()
    private(set) var signals: [SignalMessage] = []

    init(address: String) throws {
        connection = try Connection(address: address)
        loop.add(connection)
    }

    /// Records every signal the daemon sends (PropertiesChanged, Committed).
    func listen() {
        connection.addMatch("type='signal',sender='\(busName)',path='\(objectPath.rawValue)'")
        _ = connection.onSignal(interface: nil, member: nil, path: objectPath) { [unowned self] signal in
            self.signals.append(signal)
        }
        // The bus applies AddMatch in order; a round trip guarantees it is in place.
        _ = nameHasOwner(busName)
    }

    func call(_ member: String, _ arguments: [DBusValue] = [], interface: String = interfaceName) throws(MethodError) -> [DBusValue] {
        try connection.call(destination: busName, path: objectPath, interface: interface, member: member,
                            arguments: arguments, timeoutMilliseconds: 10_000)
    }

    func property(_ name: String) throws(MethodError) -> DBusValue {
        let reply = try call("Get", [.string(interfaceName), .string(name)], interface: InterfaceName.properties.rawValue)
        return reply.first?.asVariant ?? .string("<no reply value>")
    }

    func nameHasOwner(_ name: String) -> Bool {
        (try? connection.nameHasOwner(name, timeoutMilliseconds: 5000)) ?? false
    }

    /// Dispatches incoming messages until `condition` holds or `timeout` passes.
    @discardableResult
    func pump(timeout: Double = 5, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            loop.run(seconds: 0.01)
        }
        return true
    }

    /// Collects what arrives within `seconds`.
    func settle(_ seconds: Double = 0.2) { loop.run(seconds: seconds) }

    /// PropertiesChanged bodies received so far, as dictionaries.
    var propertiesChanged: [[String: DBusValue]] {
        signals.filter { $0.member == "PropertiesChanged" }.compactMap { $0.arguments.dropFirst().first?.asStringDict }
    }

    var committed: [(UInt32, Int32)] {
        signals.filter { $0.member == "Committed" }.compactMap { signal in
            guard let index = signal.arguments.first?.asUInt32, let size = signal.arguments.last?.asInt32 else { return nil }
            return (index, size)
        }
    }

    func clear() { signals.removeAll() }

    func close() { connection.close() }
}

