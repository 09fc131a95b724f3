import TestSupport

/// One private session bus and the benchmark's three connections to it: `caller` makes the calls,
/// `watcher` receives the signals they cause, `names` sees the server take its name. Each server has a
/// bus of its own (the baseline, another build of snapsized, owns the same name as the daemon), so
/// that no server's messages are routed past another's connections and match rules.
final class BenchBus {
    let session: PrivateSessionBus
    let caller: BusClient
    let watcher: BusClient
    let names: BusClient

    /// Starts the bus and subscribes `names` to the NameOwnerChanged of `kind`'s name.
    init(for kind: ServerKind) throws {
        session = try PrivateSessionBus()
        caller = try BusClient(address: session.address)
        watcher = try BusClient(address: session.address)
        names = try BusClient(address: session.address)
        try names.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',arg0='\(kind.busName)'")
    }

    var address: String { session.address }
    var environment: [String: String] { session.environment }

    func stop() { session.stop() }
}
