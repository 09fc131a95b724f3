import DBusKit
import Foundation
import SizeSelectorContract

/// A test's set-up went wrong (a product not built, a program missing or not starting, a bus that did
/// not come up, a reply that is not JSON ...); says what, for the test's failure message.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
    /// A system call failed with `code` (an errno) while doing `what`.
    public init(_ what: String, errno code: Int32) {
        self.init("\(what): \(String(cString: strerror(code)))")
    }
}

/// A private session bus with a real `snapsized` on it (never the desktop's bus). D-Bus
/// activation reaches only `serviceDirectory`, so nothing installed on the machine, not even
/// org.a11y.Bus, can be started on it. Everything is stopped by PID.
public final class DaemonFixture {
    public let bus: PrivateSessionBus
    /// The bus's only activation directory: empty unless `activatable`.
    public let serviceDirectory: String
    public private(set) var daemon: ChildProcess?
    /// The bus's environment, without NO_COLOR (so output does not depend on the caller's).
    public var environment: [String: String]
    /// Where snapsized keeps the committed size on this bus's private home.
    public let stateFile: String

    /// `activatable`: write the contract's activation file (`SelectorBus.activationFile`), starting the built snapsized.
    /// `socketName`: the bus listens at `$XDG_RUNTIME_DIR/<socketName>` ("bus": where dbus-user-session puts it).
    public init(
        _ daemonArguments: [String] = [], startDaemon: Bool = true, activatable: Bool = false,
        socketName: String? = nil
    ) throws {
        serviceDirectory = try makeTemporaryDirectory()
        if activatable {
            let name = SelectorBus.name.rawValue
            try """
            [D-BUS Service]
            Name=\(name)
            Exec=\(try Self.snapsized) --no-accessibility --no-state

            """.write(
                toFile: serviceDirectory + "/" + SelectorBus.activationFile, atomically: true,
                encoding: .utf8)
        }
        bus = try PrivateSessionBus(serviceDirectories: [serviceDirectory], socketName: socketName)
        environment = bus.environment
        environment["NO_COLOR"] = nil
        stateFile = bus.directory + "/home/.local/state/snapsize/state"
        if startDaemon { try start(daemonArguments) }
    }

    deinit {
        daemon?.terminate(timeout: 5)
        bus.stop()
        try? FileManager.default.removeItem(atPath: serviceDirectory)
    }

    public static var snapsized: String {
        get throws {
            guard let path = productPath("snapsized") else {
                throw TestFailure(
                    "snapsized is not built in \(productsDirectory); run `swift build` first")
            }
            return path
        }
    }

    /// Starts snapsized (without the accessibility side unless asked) and waits until it owns its name.
    public func start(_ arguments: [String] = [], accessibility: Bool = false) throws {
        let flags = (accessibility ? [] : ["--no-accessibility"]) + arguments
        daemon = try startSnapsized(flags, environment: environment, busAddress: bus.address)
    }

    /// SIGTERM, and the exit status.
    @discardableResult
    public func stop() -> Int32 {
        defer { daemon = nil }
        return daemon?.terminate(timeout: 5) ?? -1
    }

    /// A client of our own (another "person" on the bus), with a loop to receive signals.
    public func client() throws -> SelectorClient { try SelectorClient(address: bus.address) }

    /// A watcher listening, and a second client holding a preview at `x`: the watcher has seen the
    /// preview, with ChangedBy naming the owner's process (`SelectorClient.announcements`).
    public func watchedPreview(at x: Double = 12) throws -> (
        watcher: SelectorClient, owner: SelectorClient
    ) {
        let watcher = try client()
        watcher.listen()
        let owner = try client()
        _ = try owner.call("Preview", [.double(x)])
        guard watcher.pump(until: { watcher.announcements.count >= 1 && watcher.announcementsSettled })
        else {
            throw TestFailure(
                "the watcher saw \(watcher.propertiesChanged), "
                    + "not the preview with ChangedBy naming the owner's process")
        }
        return (watcher, owner)
    }

    /// Runs a command-line tool against this bus.
    public func tool(_ executable: String, _ arguments: [String]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try run(executable, arguments, environment: environment)
    }

    /// dbus-send to snapsized; `member` without a dot is a method of org.snapsize.SizeSelector1.
    public func dbusSend(_ member: String, _ arguments: String...) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try tool(
            "dbus-send",
            [
                "--session", "--print-reply", "--dest=\(SelectorBus.name.rawValue)",
                SelectorBus.path.rawValue,
                Self.qualified(member)
            ] + arguments)
    }

    /// gdbus call to snapsized; `member` as for `dbusSend`.
    public func gdbusCall(_ member: String, _ arguments: String...) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try tool(
            "gdbus",
            [
                "call", "--session", "--dest", SelectorBus.name.rawValue, "--object-path",
                SelectorBus.path.rawValue,
                "--method", Self.qualified(member)
            ] + arguments)
    }

    private static func qualified(_ member: String) -> String {
        member.contains(".") ? member : "\(SelectorBus.interface.rawValue).\(member)"
    }
}

extension Connection {
    /// Calls `member` of org.snapsize.SizeSelector1 (or of `interface`) on snapsized and blocks for
    /// the reply, 10 s at most.
    @discardableResult
    public func selector(
        _ member: String, _ arguments: [DBusValue] = [],
        interface: String = SelectorBus.interface.rawValue
    ) throws(MethodError) -> [DBusValue] {
        try call(
            destination: SelectorBus.name.rawValue, path: SelectorBus.path, interface: interface,
            member: member,
            arguments: arguments, timeoutMilliseconds: 10_000)
    }

    /// One property of org.snapsize.SizeSelector1 (Properties.Get), or nil when the reply has no variant.
    public func selectorProperty(_ name: String) throws(MethodError) -> DBusValue? {
        try selector(
            "Get", [.string(SelectorBus.interface.rawValue), .string(name)],
            interface: InterfaceName.properties.rawValue
        ).first?.asVariant
    }
}

/// One JSON object parsed with Foundation's parser (not the project's), for field-by-field checks.
public func parseJSONObject(_ text: String) throws -> [String: Any] {
    guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    else {
        throw TestFailure("not a JSON object: \(text)")
    }
    return object
}
