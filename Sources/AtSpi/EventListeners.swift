import DBusKit
import SystemCalls

/// Which events assistive technologies listen for, as the AT-SPI registry tells: its
/// `GetRegisteredEvents` once, then its `EventListenerRegistered` / `EventListenerDeregistered`
/// signals, and a fresh query whenever the registry gets a new owner. A screen reader that exits
/// is deregistered by the registry itself (one `EventListenerDeregistered(name, "")`). A query
/// that fails (a registry slow to start answers nothing within `queryTimeout`) is asked again, with
/// growing delays (`Retry`), until it is answered; the first failure of a run of them is logged.
///
/// Used to choose how to speak: Orca 45 and later register `object:announcement`, Orca 43 does not.
public final class EventListeners {
    static let path = ObjectPath(rawValue: "/org/a11y/atspi/registry")!
    static let interface = "org.a11y.atspi.Registry"
    /// How long the registry has to answer a query, in seconds.
    public static let queryTimeout = 10.0

    let connection: Connection
    private let retry: Retry
    private let timeoutMilliseconds: Int32
    /// A query failed and none has been answered since (one log line per run of failures).
    private var failing = false
    /// Counts the registry's owners: an answer from one that has gone since is not this one's list.
    private var generation = 0
    /// (listener's bus name, event type split at ':' — "Object", "Announcement", "").
    private var registered: [(listener: String, event: [Substring])] = [] {
        didSet { hasAnnouncementListener = registered.contains(where: Self.isAnnouncement) }
    }
    private var started = false
    /// Runs when `isKnown` changes.
    public var onChange: (() -> Void)?

    /// The registry has answered the query since it last got a new owner (or the query failed:
    /// until a retry is answered, the list is taken as empty), so `hasAnnouncementListener` can be trusted.
    public private(set) var isKnown = false {
        didSet { if isKnown != oldValue { onChange?() } }
    }

    public init(
        connection: Connection, loop: EventLoop, queryTimeout: Double = EventListeners.queryTimeout
    ) {
        self.connection = connection
        retry = Retry(loop: loop)
        timeoutMilliseconds = Int32((queryTimeout * 1000).rounded())
    }

    /// Whether some client listens for `object:announcement` by that name (a listener for all
    /// object events, as an event logger registers, does not count: it is not a screen reader).
    /// Worked out when the list changes, not on every read: the speaker asks on every commit.
    public private(set) var hasAnnouncementListener = false

    private static func isAnnouncement(_ entry: (listener: String, event: [Substring])) -> Bool {
        entry.event.count >= 2 && entry.event[0].lowercased() == "object"
            && entry.event[1].lowercased() == "announcement"
    }

    public func start() {
        guard !started else { return }
        started = true
        // Only the registry's own signals: the bus matches sender against the name's current owner.
        connection.addMatch(
            "type='signal',sender='\(AtspiPaths.registryName)',interface='\(Self.interface)',"
                + "path='\(Self.path.rawValue)'")
        connection.onSignal(
            interface: Self.interface, member: "EventListenerRegistered", path: Self.path
        ) {
            [unowned self] signal in
            guard let listener = signal.arguments.first?.asString, signal.arguments.count >= 2,
                let event = signal.arguments[1].asString
            else { return }
            self.registered.append((listener, Self.split(event)))
        }
        connection.onSignal(
            interface: Self.interface, member: "EventListenerDeregistered", path: Self.path
        ) {
            [unowned self] signal in
            guard let listener = signal.arguments.first?.asString, signal.arguments.count >= 2,
                let event = signal.arguments[1].asString
            else { return }
            self.deregister(listener: listener, pattern: Self.split(event))
        }
        connection.watchNameOwner(AtspiPaths.registryName) { [unowned self] owner in
            self.generation += 1
            self.retry.reset()
            self.failing = false
            self.registered = []
            self.isKnown = false
            if owner != nil { self.query() }
        }
        query()
    }

    /// The reply is a snapshot taken after every signal that reached us before it, and signals
    /// sent after it arrive after it (one sender, one order): replacing the list is exact.
    /// A query repeated is harmless (its answer replaces the list), so it has a timeout and is
    /// asked again when it fails.
    private func query() {
        let asked = generation
        do {
            try connection.callAsync(
                destination: AtspiPaths.registryName, path: Self.path, interface: Self.interface,
                member: "GetRegisteredEvents", timeoutMilliseconds: timeoutMilliseconds
            ) { [weak self] reply in
                guard let self, asked == self.generation else { return }
                defer { self.isKnown = true }
                guard case .success(let values) = reply, let entries = values.first?.asArray else {
                    if !self.failing {
                        self.failing = true
                        let why =
                            if case .failure(let error) = reply { error.message } else {
                                "a reply of another shape"
                            }
                        writeDiagnostic(
                            "the accessibility registry did not say which events are listened for (\(why)); "
                                + "asking again until it does")
                    }
                    self.retry.schedule { [weak self] in
                        if let self, asked == self.generation { self.query() }
                    }
                    return
                }
                self.retry.reset()
                self.failing = false
                self.registered = entries.compactMap { entry in
                    guard let fields = entry.asStructure, fields.count == 2,
                        let listener = fields[0].asString,
                        let event = fields[1].asString
                    else { return nil }
                    return (listener, Self.split(event))
                }
            }
        } catch {
            isKnown = true
            writeDiagnostic(
                "could not ask the accessibility registry which events are listened for: \(error.message)"
            )
        }
    }

    /// As the registry does: removes the listener's entries that `pattern` covers, where an empty
    /// part (or a missing one) covers anything ("" removes all of that listener's entries).
    private func deregister(listener: String, pattern: [Substring]) {
        let parts = Array(pattern.prefix { !$0.isEmpty })
        registered.removeAll { entry in
            entry.listener == listener
                && parts.indices.allSatisfy { $0 < entry.event.count && entry.event[$0] == parts[$0] }
        }
    }

    static func split(_ event: String) -> [Substring] {
        event.split(separator: ":", omittingEmptySubsequences: false)
    }
}
