/// Turns the rounds into table rows: each figure is the median over rounds of that round's
/// statistic, and each ratio the median over rounds of that round's snapsized/peer ratio, so a round
/// the machine was busy in moves both sides together and the ratio stays put.
struct Summary {
    let rounds: [RoundResult]
    /// "tmpfs" or "disk": the targets against sd-bus differ (docs/PERFORMANCE.md).
    let medium: String
    let snapCore: SnapCoreComparison?

    private func row(
        _ name: String, unit: String, scale: Double, targets: [Row.Target],
        _ statistic: @escaping (RoundResult, ServerKind) -> Double?
    ) -> Row {
        var values: [ServerKind: Double] = [:], ratios: [ServerKind: Double] = [:]
        for kind in ServerKind.allCases {
            let perRound = rounds.compactMap { statistic($0, kind) }
            if !perRound.isEmpty { values[kind] = Statistics.median(perRound) * scale }
        }
        for peer in Report.ratioColumns {
            let perRound = rounds.compactMap { round -> Double? in
                guard let d = statistic(round, .daemon), let p = statistic(round, peer), p > 0 else {
                    return nil
                }
                return d / p
            }
            if !perRound.isEmpty { ratios[peer] = Statistics.median(perRound) }
        }
        return Row(name: name, unit: unit, values: values, ratios: ratios, targets: targets)
    }

    var rows: [Row] {
        let disk = medium == "disk"
        var rows: [Row] = []
        rows.append(
            row(
                "round trip p50", unit: "us", scale: 1e6,
                targets: [
                    .ratio(to: .floor, atMost: 1.10), .ratio(to: .sdbus, atMost: disk ? 0.50 : 1.00)
                ]
            ) {
                $0.roundTrips[$1].map { Statistics.percentile($0, 0.5) }
            })
        rows.append(
            row("round trip p99", unit: "us", scale: 1e6, targets: []) {
                $0.roundTrips[$1].map { Statistics.percentile($0, 0.99) }
            })
        // What `snapsizectl inc` waits for once connected; the daemon asks the bus who the client is.
        rows.append(
            row(
                "new client's first call p50", unit: "us", scale: 1e6,
                targets: [.ratio(to: .floor, atMost: 1.30)]
            ) {
                $0.firstCalls[$1].map { Statistics.percentile($0, 0.5) }
            })
        rows.append(
            row(
                "calls/s, 32 in flight", unit: "1/s", scale: 1,
                targets: [
                    .ratio(to: .floor, atLeast: 0.90), .ratio(to: .sdbus, atLeast: disk ? 2.0 : 1.0)
                ]
            ) {
                $0.callsPerSecond[$1]
            })
        rows.append(
            row(
                "call -> PropertiesChanged p50", unit: "us", scale: 1e6,
                targets: [.ratio(to: .floor, atMost: 1.10)]
            ) {
                $0.toSignal[$1].map { Statistics.percentile($0, 0.5) }
            })
        rows.append(
            row("call -> PropertiesChanged p99", unit: "us", scale: 1e6, targets: []) {
                $0.toSignal[$1].map { Statistics.percentile($0, 0.99) }
            })
        rows.append(cpuPerCall)
        // Memory: PSS is the target, because RSS counts in full the pages of libc and libdbus that every
        // desktop process shares; RSS and private are shown beside it.
        let mebibyte = 1.0 / 1_048_576
        for (when, memory) in [
            ("idle", \RoundResult.memoryIdle), ("after calls", \RoundResult.memoryAfterCalls)
        ] {
            rows.append(
                row("RSS, \(when)", unit: "MiB", scale: mebibyte, targets: []) {
                    $0[keyPath: memory][$1]?.resident
                })
            rows.append(
                row(
                    "PSS, \(when)", unit: "MiB", scale: mebibyte,
                    targets: when == "idle" ? [] : [.value(atMost: 4)]
                ) {
                    $0[keyPath: memory][$1]?.proportional
                })
            rows.append(
                row("private, \(when)", unit: "MiB", scale: mebibyte, targets: []) {
                    $0[keyPath: memory][$1]?.exclusive
                })
        }
        rows.append(row("peak RSS", unit: "MiB", scale: mebibyte, targets: []) { $0.peakResident[$1] })
        if rounds.contains(where: { $0.idleWakeUps != nil }) {
            rows.append(
                row("idle wake-ups in 5 s", unit: "count", scale: 1, targets: [.value(atMost: 0)]) {
                    $0.idleWakeUps?[$1]
                })
        }
        rows.append(
            row(
                "exec -> name owned", unit: "ms", scale: 1e3,
                targets: [.value(atMost: 10), .ratio(to: .sdbus, atMost: 1.00)]
            ) {
                $0.startUp[$1]
            })
        if rounds.contains(where: { !$0.toAccessibleEvent.isEmpty }) {
            rows.append(accessibility(0.5, targets: [.ratio(to: .floor, atMost: 1.5)]))
            rows.append(accessibility(0.99, targets: []))
        }
        if rounds.contains(where: { !$0.toSpeech.isEmpty }) {
            // Heard at once (the target below): the announcement goes out with the value event.
            let perRound = rounds.filter { !$0.toSpeech.isEmpty }.map {
                Statistics.percentile($0.toSpeech, 0.5)
            }
            rows.append(
                Row(
                    name: "call -> announcement or notification p50", unit: "us",
                    values: [.daemon: Statistics.median(perRound) * 1e6], ratios: [:],
                    targets: [.value(atMost: 50_000)]))
        }
        if let snapCore {
            // The floor column holds the same mapping in C, -O2, measured alternately in this run.
            rows.append(
                Row(
                    name: "SnapCore index(at:), floor column: C -O2", unit: "ns/op",
                    values: [.daemon: snapCore.swiftNanoseconds, .floor: snapCore.cNanoseconds],
                    ratios: [.floor: snapCore.ratio], targets: [.ratio(to: .floor, atMost: 1.2)]))
        }
        return rows
    }

    /// CPU per call from the totals of every round (one round's schedstat delta is small and noisy;
    /// the sum over rounds is what the machine really spent).
    private var cpuPerCall: Row {
        func total(_ kind: ServerKind) -> Double? {
            let seconds = rounds.reduce(0) { $0 + ($1.cpuSeconds[kind] ?? 0) }
            let calls = rounds.reduce(0) { $0 + ($1.calls[kind] ?? 0) }
            return calls > 0 ? seconds / Double(calls) * 1e6 : nil
        }
        var values: [ServerKind: Double] = [:], ratios: [ServerKind: Double] = [:]
        for kind in ServerKind.allCases { values[kind] = total(kind) }
        for peer in Report.ratioColumns {
            if let daemon = values[.daemon], let other = values[peer], other > 0 {
                ratios[peer] = daemon / other
            }
        }
        return Row(
            name: "server CPU per call", unit: "us", values: values, ratios: ratios,
            targets: [.ratio(to: .floor, atMost: 1.2), .ratio(to: .sdbus, atMost: 1.00)])
    }

    /// snapsized's call -> accessible-value event against the floor's call -> PropertiesChanged,
    /// measured alternately in the same phase.
    private func accessibility(_ p: Double, targets: [Row.Target]) -> Row {
        let measured = rounds.filter { !$0.toAccessibleEvent.isEmpty }
        let daemon = measured.map { Statistics.percentile($0.toAccessibleEvent, p) }
        let floor = measured.map { Statistics.percentile($0.floorToSignalBesideAccessibility, p) }
        let ratios = zip(daemon, floor).map { $0 / $1 }
        return Row(
            name: "call -> accessible-value event p\(Int(p * 100))", unit: "us",
            values: [.daemon: Statistics.median(daemon) * 1e6, .floor: Statistics.median(floor) * 1e6],
            ratios: [.floor: Statistics.median(ratios)], targets: targets)
    }
}
