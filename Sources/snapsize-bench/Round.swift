import Glibc
import SnapSettings
import SystemCalls

/// Everything one round measured, per server.
struct RoundResult {
    var roundTrips: [ServerKind: [Double]] = [:]
    /// The first call of a client new to the server, once per fresh connection.
    var firstCalls: [ServerKind: [Double]] = [:]
    var callsPerSecond: [ServerKind: Double] = [:]
    var toSignal: [ServerKind: [Double]] = [:]
    var startUp: [ServerKind: Double] = [:]
    var peakResident: [ServerKind: Double] = [:]
    /// Once every server has its name and before the first call, and after every call of the round.
    var memoryIdle: [ServerKind: Memory] = [:]
    var memoryAfterCalls: [ServerKind: Memory] = [:]
    var cpuSeconds: [ServerKind: Double] = [:]
    var calls: [ServerKind: Int] = [:]
    /// Only in the round that measures idleness.
    var idleWakeUps: [ServerKind: Double]?
    /// snapsized with its accessible slider: call -> accessible-value event at the listener.
    var toAccessibleEvent: [Double] = []
    /// snapsized with its accessible slider: call -> announcement or notification, after a quiet moment.
    var toSpeech: [Double] = []
    /// The floor's call -> PropertiesChanged, measured alternately with the line above.
    var floorToSignalBesideAccessibility: [Double] = []
    /// Whole processes stepping snapsized, per client (only in rounds given a key-press runner).
    var keyPresses: [KeyPressClient: [KeyPressSample]]?
}

/// How much each phase does per server per round (small blocks, alternating servers).
enum Workload {
    static let roundTripBlocks = 40, roundTripPerBlock = 10
    static let firstCallBlocks = 20
    static let pipelinedBlocks = 4, window = 32  // calls per block: Medium.pipelinedPerBlock
    static let signalBlocks = 30, signalPerBlock = 10
    static let accessibleBlocks = 40, accessiblePerBlock = 10
    /// Single changes spoken per round, each after a quiet moment longer than the speaker's window
    /// (`SpeechTiming.quiet`), so that each is spoken at once.
    static let speechSamples = 10
    static let speechQuietMicroseconds = useconds_t(SpeechTiming.quiet * 1_000_000)
    static let idleSeconds = 5.0
    /// Processes per client per round: blocks of 2 (one step up, one down), the first client rotating.
    static let keyPressBlocks = 15, keyPressPerBlock = 2
}

/// One round: fresh processes, every phase, then everything stopped by PID.
struct Round {
    let number: Int
    let programs: Programs
    let stateFolder: String
    let pipelinedPerBlock: Int
    /// Each server's bus (the daemon's also carries the accessibility stack).
    let buses: [ServerKind: BenchBus]
    let accessibilityEnvironment: [String: String]
    let listener: AccessibilityListener?
    let measureIdle: Bool
    /// The key-press clients, run against snapsized (on its bus) after the other D-Bus phases; nil in
    /// the tables that do not measure them.
    let keyPress: KeyPressRunner?

    func run() throws -> RoundResult {
        var result = RoundResult()
        // Start-up order rotates between rounds.
        let all = programs.kinds, shift = number % all.count
        let kinds = Array(all[shift...] + all[..<shift])
        var servers: [RunningServer] = []
        defer { for server in servers { server.stop() } }
        for kind in kinds {
            let bus = buses[kind]!
            let server = try RunningServer(
                kind, on: bus, programs: programs, stateFile: statePath(kind.rawValue),
                accessibility: false, environment: bus.environment)
            servers.append(server)
            result.startUp[kind] = server.startUpSeconds
        }
        for server in servers { result.memoryIdle[server.kind] = server.memory }
        let cpuBefore = Dictionary(uniqueKeysWithValues: servers.map { ($0.kind, $0.cpuSeconds) })

        var phases = Phases()
        result.roundTrips = try phases.roundTrips(
            servers, blocks: Workload.roundTripBlocks,
            perBlock: Workload.roundTripPerBlock)
        result.firstCalls = try phases.firstCalls(servers, blocks: Workload.firstCallBlocks)
        result.callsPerSecond = try phases.pipelined(
            servers, blocks: Workload.pipelinedBlocks,
            perBlock: pipelinedPerBlock, window: Workload.window)
        let signals = "type='signal',path='\(Contract.path)'"
        let watchers = servers.map(\.bus.watcher)
        for watcher in watchers { try watcher.addMatch(signals) }
        result.toSignal = try phases.callToSignal(
            servers, blocks: Workload.signalBlocks, perBlock: Workload.signalPerBlock)

        for server in servers {
            result.cpuSeconds[server.kind] = server.cpuSeconds - (cpuBefore[server.kind] ?? 0)
            result.peakResident[server.kind] = server.peakResidentBytes
            result.memoryAfterCalls[server.kind] = server.memory
        }
        result.calls = phases.calls

        if let keyPress {
            // After the CPU and memory figures above, which the key presses' calls would change. One
            // process of each first, not timed, so that none of them is the first to read its files.
            _ = try keyPress.run(blocks: 1, perBlock: 1)
            result.keyPresses = try keyPress.run(
                blocks: Workload.keyPressBlocks, perBlock: Workload.keyPressPerBlock)
        }

        if measureIdle {
            // Let anything a call scheduled (e.g. a coalescing timer) run out first.
            usleep(500_000)
            let before = servers.map(\.contextSwitches)
            usleep(useconds_t(Workload.idleSeconds * 1_000_000))
            let after = servers.map(\.contextSwitches)
            result.idleWakeUps = Dictionary(
                uniqueKeysWithValues: servers.indices.map { (servers[$0].kind, after[$0] - before[$0]) })
        }

        if let listener {
            // The same daemon build with its accessible slider, against the floor's PropertiesChanged.
            let plain = servers.first { $0.kind == .daemon }!
            plain.stop()
            servers.removeAll { $0 === plain }
            let daemon = try RunningServer(
                .daemon, on: buses[.daemon]!, programs: programs, stateFile: statePath("daemon-a11y"),
                accessibility: true, environment: accessibilityEnvironment)
            servers.append(daemon)
            let floor = servers.first { $0.kind == .floor }!
            try warmUp(daemon, listener: listener, phases: &phases)
            for block in 0..<Workload.accessibleBlocks {
                for side in (block % 2 == 0 ? [0, 1] : [1, 0]) {
                    for _ in 0..<Workload.accessiblePerBlock {
                        if side == 0 {
                            result.toAccessibleEvent.append(
                                try phases.callToAccessibleEvent(daemon, listener: listener))
                        } else {
                            result.floorToSignalBesideAccessibility.append(
                                try phases.signalLatency(floor))
                        }
                    }
                }
            }
            for _ in 0..<Workload.speechSamples {
                result.toSpeech.append(try phases.callToSpeech(daemon, listener: listener))
            }
        }
        for watcher in watchers {
            watcher.removeMatch(signals)
            watcher.drain()
        }
        return result
    }

    /// Steps until the listener sees an event: the slider is registered and libatspi has its cache.
    private func warmUp(_ daemon: RunningServer, listener: AccessibilityListener, phases: inout Phases)
        throws
    {
        let deadline = monotonicNow() + 15
        while monotonicNow() < deadline {
            if (try? phases.callToAccessibleEvent(daemon, listener: listener)) != nil {
                for _ in 0..<20 { _ = try phases.callToAccessibleEvent(daemon, listener: listener) }
                return
            }
        }
        throw BenchError("the accessibility listener saw no event from snapsized within 15 s")
    }

    private func statePath(_ name: String) -> String {
        "\(stateFolder)/round\(number)-\(name)/state"
    }
}
