import DBusKit
import SizeSelectorContract
import SnapTexts

/// Who a caller is, for people: the bus says which process owns a unique name
/// (`GetConnectionCredentials`: its `ProcessFD` where the bus offers one, else its `ProcessID`;
/// `ProcessCheck` makes sure it is still that process), and /proc/<pid>/cmdline says which program that is
/// ("snapsizectl adjust", read off the loop by `CommandReader`). Asked once per client,
/// asynchronously: nothing on the serving path waits for the bus (a blocking call would first
/// flush everything queued for it, without a timeout, and a backlog or a stopped bus would freeze
/// the whole daemon, SIGTERM included). Until the answer
/// comes a client is known by its unique name alone; `learned` runs when it does. Meanwhile the
/// client's replies wait (`holdingRepliesTo`): a client that had its reply may exit at once
/// (`snapsizectl inc`, `gdbus call`), and /proc would no longer tell its command. On the session
/// bus the question goes as the client connects (`askAsClientsConnect`), so that the wait is
/// usually over before its first call. Remembered for the last `capacity` clients; unique names
/// are never reused on a bus.
final class ClientDirectory {
    static let capacity = 64
    /// A person reads the command in a sentence: beyond this it is cut.
    static let maximumCommand = 60
    /// How long the bus may take to answer before the process stays unknown; also the longest a
    /// new client's reply waits for it. The bus answers in well under a millisecond: only a bus in
    /// trouble takes this long, and it must not hold the client much longer than that.
    static let lookUpTimeoutMilliseconds: Int32 = 500

    private let connection: Connection
    private let commands: CommandReader
    private var known: [String: ClientIdentity] = [:]
    private var order: [String] = []
    /// Clients whose answer is awaited (at most `capacity`: more new clients at once stay known by name).
    private var asking: Set<String> = []
    /// Runs with a client's full identity once the bus has answered (from the event loop).
    var learned: ((ClientIdentity) -> Void)?

    init(connection: Connection, commands: CommandReader) {
        self.connection = connection
        self.commands = commands
    }

    /// Asks about each client as the bus announces it (NameOwnerChanged for a new unique name, which
    /// the bus sends before that client can send anything), so that its first call usually finds
    /// its process known, or asked about already: the bus's work for the question is then done
    /// before the call, not between the call and its reply. Only names appearing are matched (arg1
    /// empty), not names leaving; at most half of `capacity` asked at once this way, so a flood of
    /// connections leaves room for the clients that call.
    func askAsClientsConnect() {
        let bus = BusName.bus.rawValue
        connection.addMatch(
            "type='signal',sender='\(bus)',interface='\(InterfaceName.bus.rawValue)',"
                + "member='NameOwnerChanged',arg1=''")
        _ = connection.onSignal(interface: InterfaceName.bus.rawValue, member: "NameOwnerChanged") {
            [weak self] signal in
            guard let self, signal.sender == bus, signal.arguments.count == 3,
                let name = signal.arguments[0].asString, name.hasPrefix(":"),
                signal.arguments[1].asString == "", signal.arguments[2].asString == name,
                name != connection.uniqueName, known[name] == nil, asking.count < Self.capacity / 2
            else { return }
            ask(name)
        }
    }

    /// What is known of `sender` now: its full identity once the bus has answered, else its name alone.
    func identity(of sender: String) -> ClientIdentity {
        if let identity = known[sender] { return identity }
        ask(sender)
        return ClientIdentity(uniqueName: sender, pid: 0, command: "")
    }

    /// Asks the bus who `sender` is, holding its replies until the answer and the read of its
    /// command (`readCommand`), and wakes the thread that reads it meanwhile
    /// (`CommandReader.expectRequest`).
    private func ask(_ sender: String) {
        guard !asking.contains(sender), asking.count < Self.capacity else { return }
        asking.insert(sender)
        let heardAt = ProcessCheck.nowTicks()
        do {
            try connection.callAsync(
                destination: BusName.bus.rawValue, path: .bus, interface: InterfaceName.bus.rawValue,
                member: "GetConnectionCredentials", arguments: [.string(sender)],
                timeoutMilliseconds: Self.lookUpTimeoutMilliseconds, holdingRepliesTo: sender
            ) { [weak self] reply in
                // A client that left first, or a bus that did not answer: the process stays unknown.
                let credentials = (try? reply.get())?.first?.asStringDict ?? [:]
                guard let self else { return }
                guard let maker = ConnectionMaker(credentials: credentials, heardAt: heardAt) else {
                    return learn(ClientIdentity(uniqueName: sender, pid: 0, command: ""))
                }
                readCommand(of: sender, madeBy: maker)
            }
            commands.expectRequest()
        } catch {
            asking.remove(sender)
            remember(ClientIdentity(uniqueName: sender, pid: 0, command: ""))
        }
    }

    /// Checks the process the bus named and reads its command off the loop (`CommandReader`); the
    /// client's replies wait for it too, at most `CommandReader.timeout` more. A pidfd is closed
    /// once the answer is in (`UnixFD`).
    private func readCommand(of sender: String, madeBy maker: ConnectionMaker) {
        connection.holdReplies(to: sender)
        commands.command(madeBy: maker) { [weak self, connection] answer in
            guard let self else { return connection.releaseReplies(to: sender) }
            found(sender, answer, pid: maker.pid)
        }
    }

    /// The thread's answer about `sender` (when it found no pid, `pid` is the one the bus gave).
    /// Its replies go as soon as it is known here, before `learned` tells the history and
    /// announces `ChangedBy` (a message built afresh for a new client): both happen in the same
    /// turn of the loop, so no call of anyone is answered from what was known before, and the
    /// client, which waited for its command to be read, need not wait for the announcement too.
    private func found(_ sender: String, _ answer: CommandReader.Answer, pid: UInt32) {
        let identity = ClientIdentity(
            uniqueName: sender, pid: answer.pid != 0 ? answer.pid : pid, command: answer.command)
        learn(identity) { [connection] in
            connection.releaseReplies(to: sender)
        }
    }

    /// Remembers `identity`, runs `known` (with it remembered), then tells `learned`.
    private func learn(_ identity: ClientIdentity, then known: () -> Void = {}) {
        asking.remove(identity.uniqueName)
        remember(identity)
        known()
        learned?(identity)
    }

    private func remember(_ identity: ClientIdentity) {
        if known[identity.uniqueName] == nil {
            if order.count >= Self.capacity { known[order.removeFirst()] = nil }
            order.append(identity.uniqueName)
        }
        known[identity.uniqueName] = identity
    }

    /// The program's name and, when it has one, its first word that is not an option:
    /// "snapsizectl adjust", "gdbus call", "python3 drag.py"; "" when /proc cannot tell.
    static func command(in process: ProcessFolder) -> String {
        guard let bytes = process.readBytes("cmdline", maximumBytes: 4096) else { return "" }
        let words = bytes.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }.filter { !$0.isEmpty }
        guard let program = words.first.map(baseName) else { return "" }
        var command = program
        if words.count > 1, !words[1].hasPrefix("-") { command += " " + baseName(words[1]) }
        let printable = Texts.printable(command)
        return printable.count > maximumCommand
            ? String(printable.prefix(maximumCommand - 1)) + "…" : printable
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

extension ClientIdentity {
    /// A client named in a file (the history): what the file says, made printable as a name the bus
    /// told would be (`Texts.printable`); a crafted file may carry anything.
    init(fromFile name: String, pid: UInt32, command: String) {
        self.init(uniqueName: Texts.printable(name), pid: pid, command: Texts.printable(command))
    }
}
