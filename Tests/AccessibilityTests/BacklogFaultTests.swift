import Foundation
import Testing
import DBusKit
import TestSupport
import SnapService

/// Clients that do not read and buses that stop reading, on both buses: the daemon's memory stays
/// bounded, the other bus and the other clients are still served, and SIGTERM still ends it.
@Suite("Reliability: backlogs on both buses", .serialized)
struct BacklogFaultTests {
    /// The daemon's anonymous memory (Pss_Anon) during a flood stays within 8 MiB of idle and comes back
    /// to within 2 MiB once it is over; not under AddressSanitizer, whose shadow memory counts too.
    static func expectAnonymousMemoryBounded(
        idle: (rss: Int, pss: Int, anonymous: Int), peak: (rss: Int, pss: Int, anonymous: Int),
        after: (rss: Int, pss: Int, anonymous: Int), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard ProcessInfo.processInfo.environment["SNAPSIZE_SANITIZER"] == nil else { return }
        #expect(
            peak.anonymous - idle.anonymous <= 8 * 1024,
            "Pss_Anon \(idle.anonymous) KiB idle, \(peak.anonymous) KiB at the peak",
            sourceLocation: sourceLocation)
        #expect(
            after.anonymous - idle.anonymous <= 2 * 1024,
            "Pss_Anon \(idle.anonymous) KiB idle, \(after.anonymous) KiB after",
            sourceLocation: sourceLocation)
    }

    /// A session bus, an accessibility stack and snapsized (with its state in the bus's home).
    final class Desktop {
        let bus: PrivateSessionBus
        let stack: AccessibilityStack
        let daemon: ChildProcess
        let session: Connection
        let a11y: Connection
        /// snapsized's unique name on the accessibility bus.
        let app: String
        var stateFile: String { bus.directory + "/home/.local/state/snapsize/state" }
        private var pipelines: [ChildProcess] = []

        init() throws {
            bus = try PrivateSessionBus(serviceDirectories: [try makeTemporaryDirectory()])
            stack = try AccessibilityStack(sessionEnvironment: bus.environment)
            let daemon = try startSnapsized([], environment: stack.environment, busAddress: bus.address)
            self.daemon = daemon
            session = try Connection(address: bus.address)
            let a11y = try Connection(address: stack.address)
            self.a11y = a11y
            var found: String?
            _ = waitUntil(timeout: 20, interval: 0.05) {
                found = try? connections(of: daemon.pid, on: a11y).first
                return found != nil
            }
            guard let found else { throw TestFailure("snapsized never joined the accessibility bus") }
            app = found
        }

        deinit {
            for pipeline in pipelines { pipeline.terminate() }
            kill(bus.daemon.pid, SIGCONT)
            daemon.terminate()
            stack.stop()
            bus.stop()
        }

        /// Starts pipeline.py: `count` calls of `members` (in turn) to `destination` on the bus at
        /// `address`, never reading a reply (with `reading`, a thread drops every reply as it comes; with
        /// `readAfter`, it reads them all that many seconds after writing and prints how they were
        /// answered; with `subscribe`, it first asks for every signal on the bus, and never reads);
        /// returns once all are written (or the bus stopped taking them).
        @discardableResult
        func pipeline(
            address: String, destination: String, path: String, interface: String, members: String,
            count: Int, readAfter: Double? = nil, waitForAll: Bool = true, reading: Bool = false,
            subscribe: Bool = false
        ) throws -> ChildProcess {
            let extra =
                reading ? ["read"] : subscribe ? ["subscribe"] : readAfter.map { ["\($0)"] } ?? []
            let child = try ChildProcess(
                "/usr/bin/python3",
                [
                    pipelineScript, address, destination, path, interface, members,
                    "\(count)"
                ] + extra, environment: bus.environment)
            pipelines.append(child)
            if waitForAll,
                !waitUntil(
                    timeout: 60, interval: 0.02, { child.stdout.contains("sent") || !child.isRunning })
            {
                throw TestFailure("pipeline.py did not write its \(count) calls: \(child.stderr)")
            }
            return child
        }

        func stopPipelines() {
            for pipeline in pipelines { pipeline.terminate() }
            pipelines = []
        }

        /// An AT-SPI call to the slider, answered within `timeout` ms (throws otherwise).
        @discardableResult
        func slider(
            _ interface: String, _ member: String, _ arguments: [DBusValue] = [], timeout: Int32 = 2000
        ) throws -> [DBusValue] {
            try a11y.call(
                destination: app, path: sliderPath, interface: interface, member: member,
                arguments: arguments,
                timeoutMilliseconds: timeout)
        }

        func selector(_ member: String, timeout: Int32 = 2000) throws -> [DBusValue] {
            try session.call(
                destination: selectorName, path: selectorPath, interface: selectorName, member: member,
                timeoutMilliseconds: timeout)
        }

        var memory: (rss: Int, pss: Int, anonymous: Int) { (try? memoryKiB(daemon.pid)) ?? (0, 0, 0) }

        func stopSessionBus() {
            kill(bus.daemon.pid, SIGSTOP)
            _ = waitUntil(timeout: 5) { isStopped(bus.daemon.pid) }
        }
    }

    @Test(
        "the session bus stopped during a burst of AT-SPI actions: every action answered, memory flat, the latest state announced once it wakes"
    )
    func stoppedSessionDuringActions() throws {
        let desktop = try Desktop()
        let selected = try SignalRecorder(
            address: desktop.bus.address,
            rule: "type='signal',sender='\(selectorName)',member='PropertiesChanged'",
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            path: selectorPath, roundTripName: selectorName
        ) { signal in
            signal.arguments.dropFirst().first?.asStringDict?["SelectedIndex"]
        }
        for number in 0..<100 {
            try desktop.slider("org.a11y.atspi.Action", "DoAction", [.int32(Int32(number % 2))])
        }
        let idle = desktop.memory
        desktop.stopSessionBus()
        let actions = stressing ? 20_000 : 3_000
        for number in 0..<actions {
            // "increment" twice, "decrement" once: the value moves, and rests at an end now and then.
            _ = try desktop.slider(
                "org.a11y.atspi.Action", "DoAction", [.int32(number % 3 == 2 ? 1 : 0)], timeout: 5000)
        }
        let stuck = desktop.memory
        let final = try desktop.slider(
            "org.freedesktop.DBus.Properties", "Get",
            [.string("org.a11y.atspi.Value"), .string("CurrentValue")]
        ).first?.asVariant?.asDouble
        selected.clear()
        kill(desktop.bus.daemon.pid, SIGCONT)
        #expect(
            selected.pump(timeout: 20) { selected.values.last?.asUInt32.map(Double.init) == final },
            "the session listener's last SelectedIndex \(String(describing: selected.values.last)), the slider's \(String(describing: final))"
        )
        if ProcessInfo.processInfo.environment["SNAPSIZE_SANITIZER"] == nil {
            // Unbounded, the session queue grew by about 1 KiB per change.
            #expect(
                stuck.anonymous - idle.anonymous <= 1024,
                "Pss_Anon \(idle.anonymous) KiB idle, \(stuck.anonymous) KiB after \(actions) actions with the session bus stopped"
            )
        }
        print(
            "stopped session bus: \(actions) AT-SPI actions, Rss \(idle.rss) -> \(stuck.rss) KiB, Pss \(idle.pss) -> \(stuck.pss) KiB, "
                + "Pss_Anon \(idle.anonymous) -> \(stuck.anonymous) KiB; "
                + "\(selected.values.count) SelectedIndex announcements once it woke")
    }

    @Test(
        "a session backlog, then a new client, with the session bus stopped: the accessible side answers, SIGTERM ends it within 3 s"
    )
    func newClientBehindBacklog() throws {
        let desktop = try Desktop()
        let pid = desktop.daemon.pid
        // Everything below reaches snapsized's socket while it is stopped (a socket holds a few hundred
        // messages); it reads it all at once. A hundred changes make three hundred messages to send,
        // more than its socket to the stopped bus takes: a backlog, then the new client's call.
        #expect(stopWhileIdle(pid))
        try desktop.pipeline(
            address: desktop.bus.address, destination: selectorName, path: selectorPath.rawValue,
            interface: selectorName, members: "Increment,Decrement", count: 100)
        for member in ["Decrement", "Increment", "Decrement"] {  // three new clients, each a change
            try desktop.pipeline(
                address: desktop.bus.address, destination: selectorName, path: selectorPath.rawValue,
                interface: selectorName, members: member, count: 1)
        }
        _ = waitUntil(timeout: 5) { sleepsInSystemCall(desktop.bus.daemon.pid) }
        try desktop.session.roundTripToBus()  // the bus has written what it routed
        desktop.stopSessionBus()
        kill(pid, SIGCONT)
        // The accessible side keeps answering while the session side cannot write.
        var answered = 0
        var outcomes: [String] = []
        for _ in 0..<5 {
            do {
                try desktop.slider("org.a11y.atspi.Accessible", "GetAttributes")
                answered += 1
                outcomes.append("answered")
            } catch {
                outcomes.append("\(error)")
            }
        }
        #expect(answered == 5, "\(answered) of 5 AT-SPI calls answered within 2 s: \(outcomes)")
        let signalled = Date()
        kill(pid, SIGTERM)
        let ended = waitUntil(timeout: 3) { hasEnded(pid) }
        #expect(ended, "still running 3 s after SIGTERM with the session bus stopped")
        print(
            "session backlog and a new client: \(answered) of 5 AT-SPI calls answered; "
                + (ended
                    ? "exited \(Int(Date().timeIntervalSince(signalled) * 1000)) ms after SIGTERM"
                    : "SIGTERM not honoured"))
        kill(desktop.bus.daemon.pid, SIGCONT)
    }

    @Test(
        "SIGTERM with the session bus stopped, a backlog queued for it and a new client's call behind the backlog: exits within 3 s"
    )
    func terminateBehindBacklog() throws {
        let desktop = try Desktop()
        let pid = desktop.daemon.pid
        // A backlog for the session bus: changes made through the accessibility bus while the session
        // bus does not read (each queues PropertiesChanged and Committed for it).
        desktop.stopSessionBus()
        for number in 0..<3_000 {
            _ = try desktop.slider(
                "org.a11y.atspi.Action", "DoAction", [.int32(Int32(number % 2))], timeout: 5000)
        }
        // A new client's call reaches snapsized behind that backlog: the bus runs just long enough
        // to deliver it (snapsized stopped meanwhile, so the backlog stays), then stops again.
        #expect(stopWhileIdle(pid))
        kill(desktop.bus.daemon.pid, SIGCONT)
        try desktop.pipeline(
            address: desktop.bus.address, destination: selectorName, path: selectorPath.rawValue,
            interface: selectorName, members: "Increment", count: 1)
        _ = waitUntil(timeout: 5) { sleepsInSystemCall(desktop.bus.daemon.pid) }
        try desktop.session.roundTripToBus()  // the bus has written what it routed
        desktop.stopSessionBus()
        kill(pid, SIGCONT)
        var answered = 0
        for _ in 0..<3 where (try? desktop.slider("org.a11y.atspi.Accessible", "GetAttributes")) != nil {
            answered += 1
        }
        let signalled = Date()
        kill(pid, SIGTERM)
        let ended = waitUntil(timeout: 3) { hasEnded(pid) }
        #expect(ended, "still running 3 s after SIGTERM with the session bus stopped behind a backlog")
        #expect(
            answered == 3,
            "\(answered) of 3 AT-SPI calls answered within 2 s after the new client's call")
        print(
            "SIGTERM behind a session backlog: \(answered) of 3 AT-SPI calls answered; "
                + (ended
                    ? "exited \(Int(Date().timeIntervalSince(signalled) * 1000)) ms after SIGTERM"
                    : "SIGTERM not honoured within 3 s"))
        kill(desktop.bus.daemon.pid, SIGCONT)
    }

    /// The private session bus has session.conf's limits (50,000 calls awaiting a reply per
    /// connection): under dbus-daemon's own defaults the bus refuses all but 128 of the flood, and
    /// the daemon never sees it.
    @Test(
        "a client pipelining Introspect on the session bus, reading its replies or not: another session client answered within 2 s, memory bounded and given back, the other bus served",
        arguments: [false, true])
    func sessionPipeline(reading: Bool) throws {
        let desktop = try Desktop()
        _ = try desktop.selector("Increment", timeout: 10_000)
        let idle = desktop.memory
        // Without the lanes, another session caller waited behind the flood's replies: 10-28 s behind 30,000.
        let calls = stressing ? 100_000 : 30_000
        let flood = try desktop.pipeline(
            address: desktop.bus.address, destination: selectorName, path: selectorPath.rawValue,
            interface: "org.freedesktop.DBus.Introspectable", members: "Introspect", count: calls,
            waitForAll: false, reading: reading)
        var peak = idle
        var answered = (a11y: 0, session: 0)
        var outcomes: [String] = []
        var slowest = 0.0
        for round in 0..<5 {
            Thread.sleep(forTimeInterval: 0.3)
            if (try? desktop.slider("org.a11y.atspi.Accessible", "GetAttributes")) != nil {
                answered.a11y += 1
            }
            let asked = Date()
            do {
                _ = try desktop.selector(round % 2 == 0 ? "Decrement" : "Increment")
                answered.session += 1
            } catch {
                outcomes.append("\(error)")
            }
            slowest = max(slowest, Date().timeIntervalSince(asked))
            let now = desktop.memory
            peak = (max(peak.rss, now.rss), max(peak.pss, now.pss), max(peak.anonymous, now.anonymous))
        }
        let sent = flood.stdout.contains("sent")
        desktop.stopPipelines()
        // Whatever waits for the flood's client, gone now, goes first.
        _ = try desktop.selector("Increment", timeout: 120_000)
        Thread.sleep(forTimeInterval: 1)
        let after = desktop.memory
        #expect(
            answered.a11y == 5,
            "\(answered.a11y) of 5 AT-SPI calls answered within 2 s during the session flood")
        #expect(
            answered.session == 5,
            "\(answered.session) of 5 other session calls answered within 2 s during the flood: \(outcomes)"
        )
        // Unbounded (the replies queued in the daemon as fast as it dispatched the flood), Pss_Anon
        // grew 15-21 MB for 10,000 and 114 MB for 30,000, kept after the client left.
        Self.expectAnonymousMemoryBounded(idle: idle, peak: peak, after: after)
        print(
            "session pipeline of \(calls) Introspect, \(reading ? "reading" : "never reading") (all sent: \(sent)): Pss \(idle.pss) -> peak \(peak.pss) -> \(after.pss) KiB, "
                + "Rss \(idle.rss) -> \(peak.rss) -> \(after.rss) KiB, Pss_Anon \(idle.anonymous) -> \(peak.anonymous) -> \(after.anonymous) KiB; "
                + "within 2 s: \(answered.a11y) of 5 AT-SPI calls, \(answered.session) of 5 other session calls (slowest \(Int(slowest * 1000)) ms)"
        )
    }

    @Test(
        "four clients pipelining GetAttributes on the accessibility bus without reading: bounded, another client on that bus answered within 2 s, the flooders answered or refused by name, memory back after"
    )
    func accessibilityPipeline() throws {
        let desktop = try Desktop()
        _ = try desktop.slider("org.a11y.atspi.Accessible", "GetAttributes")
        let idle = desktop.memory
        // dbus-daemon delivers a flood to snapsized several times faster than it takes the replies
        // (it walks every call awaiting a reply for each one it reads): without the lanes, the other
        // client's reply waits behind every reply to the flood (4 x 10,000: 5.9 s).
        let calls = stressing ? 50_000 : 10_000
        var flooders: [ChildProcess] = []
        for number in 0..<4 {
            // The first one reads its answers 2 s after writing its calls: every call is answered or refused by name.
            flooders.append(
                try desktop.pipeline(
                    address: desktop.stack.address, destination: desktop.app, path: sliderPath.rawValue,
                    interface: "org.a11y.atspi.Accessible", members: "GetAttributes", count: calls,
                    readAfter: number == 0 ? 2 : nil, waitForAll: false))
        }
        var peak = idle
        var answered = (a11y: 0, session: 0)
        var outcomes: [String] = []
        var slowest = 0.0
        // The long form asks for 15 s: the bus slows as calls await their replies, and the later part
        // of the flood is where a reply waits longest (behind what the socket holds, when it holds a lot).
        let probes = stressing ? 15 : 5
        for _ in 0..<probes {
            Thread.sleep(forTimeInterval: stressing ? 1 : 0.3)
            let asked = Date()
            do {
                try desktop.slider("org.a11y.atspi.Accessible", "GetAttributes")
                answered.a11y += 1
            } catch {
                outcomes.append("\(error)")
            }
            slowest = max(slowest, Date().timeIntervalSince(asked))
            if (try? desktop.selector("Increment")) != nil { answered.session += 1 }
            let now = desktop.memory
            peak = (max(peak.rss, now.rss), max(peak.pss, now.pss), max(peak.anonymous, now.anonymous))
        }
        // The bus crawls while the others' calls wait for it to take their answers; they go first.
        for flooder in flooders.dropFirst() { flooder.terminate() }
        let reader = flooders[0]
        _ = waitUntil(timeout: stressing ? 240 : 120, interval: 0.1) {
            reader.stdout.contains("answered") || !reader.isRunning
        }
        let answers =
            reader.stdout.split(separator: "\n").last { $0.hasPrefix("answered") }.map(String.init)
            ?? "no answers: \(reader.stderr)"
        desktop.stopPipelines()
        Thread.sleep(forTimeInterval: 1)
        _ = try desktop.slider("org.a11y.atspi.Accessible", "GetAttributes", timeout: 10_000)
        let after = desktop.memory
        #expect(
            answered.session == probes,
            "\(answered.session) of \(probes) session calls answered within 2 s during the flood")
        #expect(
            answered.a11y == probes,
            "\(answered.a11y) of \(probes) other AT-SPI calls answered within 2 s during the flood: \(outcomes)"
        )
        // Each of the reader's calls has a method return or LimitsExceeded, nothing else.
        let counts = answers.split(separator: " ").compactMap { Int($0) }
        #expect(
            counts.count == 3 && counts[0] + counts[1] == calls && counts[2] == 0,
            "the reading flooder: \(answers)")
        Self.expectAnonymousMemoryBounded(idle: idle, peak: peak, after: after)
        print(
            "accessibility pipelines 4 x \(calls) GetAttributes: Pss \(idle.pss) -> peak \(peak.pss) -> \(after.pss) KiB, "
                + "Rss \(idle.rss) -> \(peak.rss) -> \(after.rss) KiB, Pss_Anon \(idle.anonymous) -> \(peak.anonymous) -> \(after.anonymous) KiB; other calls answered within 2 s: "
                + "\(answered.a11y) of \(probes) AT-SPI (slowest \(Int(slowest * 1000)) ms), \(answered.session) of \(probes) session; the reading flooder: \(answers)"
        )
    }
}

private let pipelineScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/pipeline.py").path

private let sliderPath = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!

/// The unique names `pid` holds on the bus of `probe`.
private func connections(of pid: pid_t, on probe: Connection) throws -> [String] {
    let bus = ObjectPath(rawValue: "/org/freedesktop/DBus")!
    let names =
        try probe.call(
            destination: "org.freedesktop.DBus", path: bus, interface: "org.freedesktop.DBus",
            member: "ListNames"
        ).first?.asStringArray ?? []
    return names.filter { $0.hasPrefix(":") }.filter { name in
        let owner = try? probe.call(
            destination: "org.freedesktop.DBus", path: bus, interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", arguments: [.string(name)]
        ).first?.asUInt32
        return owner == UInt32(pid)
    }
}
