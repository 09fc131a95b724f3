import DBusKit
#if canImport(Glibc)
import Glibc
#endif

/// Finds and joins the accessibility bus, and rejoins it whenever it (re)appears.
///
/// The address comes from `AT_SPI_BUS_ADDRESS`, else from `org.a11y.Bus.GetAddress` on the
/// session bus (as libatspi and GTK do). The connection is private with exit-on-disconnect off,
/// so losing it only ends the accessible side, never the daemon. When there is no accessibility
/// bus, one line is logged and the daemon goes on serving D-Bus; a NameOwnerChanged match for
/// `org.a11y.Bus` alone (so no other client wakes us) triggers the next attempt.
/// Every step is asynchronous except the local connect + Hello: the loop is never blocked on a peer.
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
    private var asking = false
    /// One "no bus" line per absence, not one per attempt.
    private var reportedAbsence = false

    public init(session: Connection, loop: EventLoop, environment: [String: String]) {
        self.session = session
        self.loop = loop
        fixedAddress = environment["AT_SPI_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public func start() {
        session.watchNameOwner(Self.launcherName) { [unowned self] owner in
            if owner != nil { self.join() }
        }
        join()
    }

    /// How long shutdown waits for queued events to reach a bus that stopped reading.
    static let closingFlushSeconds = 0.5

    /// Leaves the bus (daemon shutdown). `onLeave` is not called. Never waits longer than
    /// `closingFlushSeconds`: a stuck accessibility bus must not keep the daemon from exiting.
    public func close() {
        guard let connection else { return }
        connection.flush(timeout: Self.closingFlushSeconds)
        loop.remove(connection)
        connection.close()
        self.connection = nil
    }

    private func join() {
        guard connection == nil, !asking else { return }
        if let fixedAddress {
            connect(to: fixedAddress, from: "AT_SPI_BUS_ADDRESS")
            return
        }
        asking = true
        do {
            try session.callAsync(destination: Self.launcherName, path: Self.launcherPath,
                                  interface: Self.launcherName, member: "GetAddress", timeoutMilliseconds: 10_000) {
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

    private func connect(to address: String, from origin: String) {
        let joined: Connection
        do {
            joined = try Connection(address: address)
        } catch {
            reportAbsence("cannot connect to \(address) (from \(origin)): \(error.message)")
            return
        }
        reportedAbsence = false
        loop.add(joined)
        joined.onDisconnect = { [unowned self] in
            atspiLog("the accessibility bus went away; the slider is gone until it comes back")
            self.connection = nil
            self.onLeave?()
        }
        connection = joined
        onJoin?(joined)
    }

    private func reportAbsence(_ reason: String) {
        guard !reportedAbsence else { return }
        reportedAbsence = true
        atspiLog("no accessibility bus (\(reason)); serving D-Bus only, and joining when \(Self.launcherName) appears")
    }
}

/// One line on stderr, prefixed with the program's name like the daemon's own messages.
func atspiLog(_ message: String) {
    writeDiagnostic(message)
}

func getenvString(_ key: String) -> String? {
    getenv(key).map { String(cString: $0) }
}
