import Glibc
import SystemCalls
/// The measured phases of a round. Every phase alternates between the servers in small blocks,
/// rotating which goes first, so that noise from the other tenant of the machine lands on all of them.
///
/// Every call alternates Increment and Decrement (per server, starting from the middle size), so
/// each one really commits, persists and announces, as a person stepping back and forth would.
///
/// Each server is called through the connections of its own bus (`RunningServer.bus`).
struct Phases {
    /// Per server: is the next step an Increment?
    private var goesUp: [ServerKind: Bool] = [:]
    /// Calls made per server in this round (for CPU per call).
    private(set) var calls: [ServerKind: Int] = [:]

    private mutating func nextStep(_ kind: ServerKind) -> Bool {
        let up = goesUp[kind] ?? true
        goesUp[kind] = !up
        calls[kind, default: 0] += 1
        return up
    }

    /// `servers` rotated by `block`, so no server always goes first.
    private static func order(_ servers: [RunningServer], _ block: Int) -> [RunningServer] {
        let shift = block % servers.count
        return Array(servers[shift...] + servers[..<shift])
    }

    /// Synchronous round trips, in seconds.
    mutating func roundTrips(_ servers: [RunningServer], blocks: Int, perBlock: Int) throws(BenchError)
        -> [ServerKind: [Double]]
    {
        var samples: [ServerKind: [Double]] = [:]
        for block in 0..<blocks {
            for server in Self.order(servers, block) {
                for _ in 0..<perBlock {
                    let up = nextStep(server.kind)
                    let start = monotonicNow()
                    guard server.bus.caller.callAndWait(server.kind.busName, increment: up) else {
                        throw BenchError("\(server.kind.rawValue) failed a call")
                    }
                    samples[server.kind, default: []].append(monotonicNow() - start)
                }
            }
        }
        return samples
    }

    /// The first call of a client the server has not seen (its connection made beforehand, not timed),
    /// in seconds: what a short-lived client such as `snapsizectl inc` waits for. snapsized asks the
    /// bus who the client is and answers once it knows; the other servers ask nothing.
    mutating func firstCalls(_ servers: [RunningServer], blocks: Int) throws(BenchError) -> [ServerKind:
        [Double]]
    {
        var samples: [ServerKind: [Double]] = [:]
        for block in 0..<blocks {
            for server in Self.order(servers, block) {
                let client = try BusClient(address: server.bus.address)
                let up = nextStep(server.kind)
                let start = monotonicNow()
                guard client.callAndWait(server.kind.busName, increment: up) else {
                    throw BenchError("\(server.kind.rawValue) failed a new client's call")
                }
                samples[server.kind, default: []].append(monotonicNow() - start)
            }
        }
        return samples
    }

    /// Calls per second with `window` calls in flight on one connection.
    mutating func pipelined(_ servers: [RunningServer], blocks: Int, perBlock: Int, window: Int)
        throws(BenchError) -> [ServerKind: Double]
    {
        var seconds: [ServerKind: Double] = [:]
        for block in 0..<blocks {
            for server in Self.order(servers, block) {
                let caller = server.bus.caller
                let start = monotonicNow()
                var sent = 0, done = 0, errors = 0
                while done < perBlock {
                    while sent < perBlock && sent - done < window {
                        caller.send(server.kind.busName, increment: nextStep(server.kind))
                        sent += 1
                    }
                    let (replies, failed) = caller.popReplies()
                    done += replies
                    errors += failed
                    if replies == 0, done < perBlock, dbus_read_write(caller) == false {
                        throw BenchError("the bus went away during the pipelined phase")
                    }
                }
                if errors > 0 {
                    throw BenchError("\(server.kind.rawValue) failed \(errors) pipelined calls")
                }
                seconds[server.kind, default: 0] += monotonicNow() - start
            }
        }
        return seconds.mapValues { Double(blocks * perBlock) / $0 }
    }

    /// Seconds from sending a call to its PropertiesChanged arriving on a second connection
    /// (Committed for the bare floor, which sends nothing else).
    mutating func callToSignal(_ servers: [RunningServer], blocks: Int, perBlock: Int) throws(BenchError)
        -> [ServerKind: [Double]]
    {
        var samples: [ServerKind: [Double]] = [:]
        for block in 0..<blocks {
            for server in Self.order(servers, block) {
                for _ in 0..<perBlock {
                    samples[server.kind, default: []].append(try signalLatency(server))
                }
            }
        }
        return samples
    }

    mutating func signalLatency(_ server: RunningServer) throws(BenchError) -> Double {
        let member = server.kind == .bare ? "Committed" : "PropertiesChanged"
        let (caller, watcher) = (server.bus.caller, server.bus.watcher)
        watcher.drain()
        let up = nextStep(server.kind)
        let start = monotonicNow()
        caller.sendNow(server.kind.busName, increment: up)
        guard let arrived = watcher.awaitSignal(member: member, sender: server.uniqueName, timeout: 5)
        else {
            throw BenchError("no \(member) from \(server.kind.rawValue) within 5 s")
        }
        if caller.awaitReplies(1) > 0 { throw BenchError("\(server.kind.rawValue) failed a call") }
        return arrived - start
    }

    /// Seconds from sending a call to the accessibility listener's time stamp of the
    /// accessible-value event it caused.
    mutating func callToAccessibleEvent(_ server: RunningServer, listener: AccessibilityListener)
        throws(BenchError) -> Double
    {
        listener.drain()
        let caller = server.bus.caller
        let up = nextStep(server.kind)
        let start = monotonicNow()
        caller.sendNow(server.kind.busName, increment: up)
        guard let arrived = listener.nextEvent(.value, timeout: 5) else {
            throw BenchError("no accessible-value event from \(server.kind.rawValue) within 5 s")
        }
        if caller.awaitReplies(1) > 0 { throw BenchError("\(server.kind.rawValue) failed a call") }
        return arrived - start
    }

    /// Seconds from sending a call to the listener's time stamp of what a screen reader speaks for
    /// it (the announcement or the notification). Each call comes after a quiet moment longer than
    /// the speaker's window (`SpeechTiming.quiet`), as a single key press does; a change inside the window would be spoken
    /// at the window's end instead, by design.
    mutating func callToSpeech(_ server: RunningServer, listener: AccessibilityListener)
        throws(BenchError) -> Double
    {
        usleep(Workload.speechQuietMicroseconds)
        listener.drain()
        let caller = server.bus.caller
        let up = nextStep(server.kind)
        let start = monotonicNow()
        caller.sendNow(server.kind.busName, increment: up)
        guard let arrived = listener.nextEvent(.speech, timeout: 5) else {
            throw BenchError("no announcement or notification from \(server.kind.rawValue) within 5 s")
        }
        if caller.awaitReplies(1) > 0 { throw BenchError("\(server.kind.rawValue) failed a call") }
        return arrived - start
    }
}
