import DBusKit
#if canImport(Glibc)
    import Glibc
#endif
import SystemCalls

/// Finds and joins the accessibility bus, and rejoins it whenever it (re)appears.
///
/// The address comes from `AT_SPI_BUS_ADDRESS`, else from `org.a11y.Bus.GetAddress` on the
/// session bus (as libatspi and GTK do). The connection is private with exit-on-disconnect off,
/// so losing it only ends the accessible side, never the daemon. When there is no accessibility
/// bus, one line is logged and the daemon goes on serving D-Bus; a NameOwnerChanged match for
/// `org.a11y.Bus` alone (so no other client wakes us) triggers the next attempt, and so does losing
/// the bus (at-spi-bus-launcher restarted: the new one is joined once). A new owner of `org.a11y.Bus`
/// while joined is asked for its address too: a launcher that died can leave its bus running (or
/// hung) without it, and the slider then moves to the new launcher's bus.
/// Every step is asynchronous, Hello included: the loop never waits for a peer, so a bus that
/// accepts the connection and never answers (its dbus-daemon stopped) holds up nothing. The
/// slider joins when it answers, however late.
public final class AccessibilityBus {
    /// at-spi-bus-launcher's name on the session bus, which is also its interface's name.
    public static let launcherName = "org.a11y.Bus"
    /// Its object, whose GetAddress tells the accessibility bus's address.
    public static let launcherPath = ObjectPath(rawValue: "/org/a11y/bus")!

    let session: Connection
    let loop: EventLoop
    let fixedAddress: String?
    /// Runs when a connection is up (added to the loop). Set before `start()`.
    public var onJoin: ((Connection) -> Void)?
    /// Runs when the connection dropped; a later join calls `onJoin` again with a new connection.
    public var onLeave: (() -> Void)?
    public private(set) var connection: Connection?
    /// Whether, in a group commit, what the loop held on this bus goes out before what it held on
    /// the others (`Connection.releasesGroupFirst`), on every connection it makes. The daemon's
    /// composition root sets it, where the order of its events is stated.
    public var releasesGroupFirst = false
    /// Connected, Hello sent, no answer yet.
    private var joining: Connection?
    /// The address of `connection` (or of `joining`), as GetAddress or the environment gave it.
    private var address: String?
    private var asking = false
    /// A GetAddress asked of a new owner of `org.a11y.Bus` while joined (see `launcherChanged`).
    private var rechecking = false
    /// Looking for the bus or joining it, not yet joined: the join may still happen.
    public var isSearching: Bool { asking || joining != nil }
    /// One "no bus" line per absence, not one per attempt.
    private var reportedAbsence = false

    public init(session: Connection, loop: EventLoop, environment: [String: String]) {
        self.session = session
        self.loop = loop
        fixedAddress = environment["AT_SPI_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public func start() {
        session.watchNameOwner(Self.launcherName) { [unowned self] owner in
            if owner != nil { self.launcherChanged() }
        }
        join()
    }

    /// How long shutdown waits for queued events to reach a bus that stopped reading.
    static let closingFlushSeconds = 0.5

    /// Leaves the bus (daemon shutdown). `onLeave` is not called. Never waits longer than
    /// `closingFlushSeconds`: a stuck accessibility bus must not keep the daemon from exiting.
    public func close() {
        if let joining { abandon(joining) }
        guard let connection else { return }
        connection.flush(timeout: Self.closingFlushSeconds)
        loop.remove(connection)
        connection.close()
        self.connection = nil
    }

    /// `org.a11y.Bus` has a new owner: a new at-spi-bus-launcher. Not joined: join. Joined (or
    /// joining) a bus an earlier launcher gave: that bus may live on as an orphan, or hang, where
    /// no screen reader will look any more, so the new launcher is asked where its bus is, and the
    /// slider moves there when it is another one (the address names the bus's guid).
    private func launcherChanged() {
        guard fixedAddress == nil, connection != nil || joining != nil else { return join() }
        guard !rechecking else { return }
        rechecking = true
        do {
            try session.callAsync(
                destination: Self.launcherName, path: Self.launcherPath,
                interface: Self.launcherName, member: "GetAddress", timeoutMilliseconds: 10_000
            ) {
                [weak self] reply in
                guard let self else { return }
                self.rechecking = false
                guard case .success(let values) = reply, let found = values.first?.asString,
                    !found.isEmpty,
                    found != self.address
                else { return }
                self.move(to: found)
            }
        } catch {
            rechecking = false
        }
    }

    /// Leaves the bus joined (or being joined) for the one at `newAddress`.
    private func move(to newAddress: String) {
        writeDiagnostic(
            "at-spi-bus-launcher was restarted and its accessibility bus is now \(newAddress); "
                + "the slider moves there")
        if let joining { abandon(joining) }
        if let connection {
            loop.remove(connection)
            connection.close()
            self.connection = nil
            onLeave?()
        }
        address = nil
        connect(to: newAddress, from: "org.a11y.Bus")
    }

    private func join() {
        guard connection == nil, joining == nil, !asking else { return }
        if let fixedAddress {
            connect(to: fixedAddress, from: "AT_SPI_BUS_ADDRESS")
            return
        }
        asking = true
        do {
            try session.callAsync(
                destination: Self.launcherName, path: Self.launcherPath,
                interface: Self.launcherName, member: "GetAddress", timeoutMilliseconds: 10_000
            ) {
                [weak self] reply in
                guard let self else { return }
                self.asking = false
                switch reply {
                case .success(let values):
                    if let address = values.first?.asString, !address.isEmpty {
                        self.connect(to: address, from: "org.a11y.Bus")
                    } else {
                        self.reportAbsence("org.a11y.Bus returned no address")
                    }
                case .failure(let error):
                    self.reportAbsence(error.message)
                }
            }
        } catch {
            asking = false
            reportAbsence(error.message)
        }
    }

    /// Connects without waiting and says Hello; `registered` finishes the join when the bus answers.
    private func connect(to address: String, from origin: String) {
        let opened: Connection
        do {
            opened = try Connection.unregistered(address: address)
        } catch {
            reportAbsence("cannot connect to \(address) (from \(origin)): \(error.message)")
            return
        }
        loop.add(opened)
        self.address = address
        // libatspi aborts its own process on an error reply to Set(CurrentValue); a write whose
        // commit could not be saved is answered as a refused one is: plainly, value unchanged.
        opened.answersUndoneCallsWithErrors = false
        opened.releasesGroupFirst = releasesGroupFirst
        opened.onDisconnect = { [unowned self, unowned opened] in self.dropped(opened) }
        joining = opened
        do {
            // No timeout: a bus that is stopped answers when it resumes, and one that dies drops the
            // connection (Disconnected), so nothing waits forever on a bus that is gone.
            try opened.register(timeoutMilliseconds: Int32.max) { [weak self, weak opened] result in
                guard let self, let opened else { return }
                self.registered(opened, result, address: address, origin: origin)
            }
        } catch {
            abandon(opened)
            reportAbsence("cannot say Hello to \(address) (from \(origin)): \(error.message)")
        }
    }

    private func registered(
        _ opened: Connection, _ result: Result<String, MethodError>, address: String, origin: String
    ) {
        guard opened === joining else { return }
        joining = nil
        switch result {
        case .success:
            reportedAbsence = false
            connection = opened
            onJoin?(opened)
        case .failure(let error):
            abandon(opened)
            reportAbsence("\(address) (from \(origin)) did not answer Hello: \(error.message)")
        }
    }

    /// The bus went away: the slider goes with it, and the bus is looked for again at once (a
    /// restarted at-spi-bus-launcher may already be there; if not, its name appearing rejoins).
    private func dropped(_ lost: Connection) {
        if lost === joining {
            joining = nil
            address = nil
        } else if lost === connection {
            address = nil
            writeDiagnostic("the accessibility bus went away; the slider is gone until it comes back")
            connection = nil
            onLeave?()
        } else {
            return
        }
        join()
    }

    private func abandon(_ opened: Connection) {
        if opened === joining { joining = nil; address = nil }
        loop.remove(opened)
        opened.close()
    }

    private func reportAbsence(_ reason: String) {
        guard !reportedAbsence else { return }
        reportedAbsence = true
        writeDiagnostic(
            "no accessibility bus (\(reason)); serving D-Bus only, and joining when \(Self.launcherName) appears"
        )
    }
}

func getenvString(_ key: String) -> String? {
    getenv(key).map { String(cString: $0) }
}
