import DBusKit
import SizeSelectorContract

/// Who a caller is, for people: the bus says which process owns a unique name
/// (`GetConnectionUnixProcessID`), and /proc/<pid>/cmdline says which program that is
/// ("snapsizectl adjust"). Looked up once per client, while it waits for our reply (so it is still
/// there), and remembered for the last `capacity` clients; unique names are never reused on a bus.
final class ClientDirectory {
    static let capacity = 64
    /// A person reads the command in a sentence: beyond this it is cut.
    static let maximumCommand = 60

    private let connection: Connection
    private var known: [String: ClientIdentity] = [:]
    private var order: [String] = []

    init(connection: Connection) {
        self.connection = connection
    }

    func identity(of sender: String) -> ClientIdentity {
        if let identity = known[sender] { return identity }
        let identity = lookUp(sender)
        if order.count >= Self.capacity { known[order.removeFirst()] = nil }
        order.append(sender)
        known[sender] = identity
        return identity
    }

    private func lookUp(_ sender: String) -> ClientIdentity {
        // A short blocking call to the bus daemon, which answers it itself; a bus that does not
        // answer within a second leaves the process unknown rather than the caller waiting.
        let pid = (try? connection.call(
            destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
            interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID", arguments: [.string(sender)],
            timeoutMilliseconds: 1000))?.first?.asUInt32 ?? 0
        let command = pid == 0 ? "" : Self.command(pid: pid)
        return ClientIdentity(uniqueName: sender, pid: pid, command: command)
    }

    /// The program's name and, when it has one, its first word that is not an option:
    /// "snapsizectl adjust", "gdbus call", "python3 drag.py"; "" when /proc cannot tell.
    static func command(pid: UInt32) -> String {
        guard let bytes = SmallFile.readBytes("/proc/\(pid)/cmdline", maximumBytes: 4096) else { return "" }
        let words = bytes.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }.filter { !$0.isEmpty }
        guard let program = words.first.map(baseName) else { return "" }
        var command = program
        if words.count > 1, !words[1].hasPrefix("-") { command += " " + baseName(words[1]) }
        let printable = String(command.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return printable.count > maximumCommand ? String(printable.prefix(maximumCommand - 1)) + "…" : printable
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
