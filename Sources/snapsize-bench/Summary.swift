/// Turns the rounds into table rows: each figure is the median over rounds of that round's
/// statistic, and each ratio the median over rounds of that round's daemon/floor ratio, so a round
/// the machine was busy in moves both sides together and the ratio stays put.
struct Summary {
    let rounds: [RoundResult]
    let snapCoreNanoseconds: Double?

    private func perRound(_ kind: ServerKind, _ statistic: (RoundResult, ServerKind) -> Double?) -> [Double] {
        rounds.compactMap { statistic($0, kind) }
    }

    private func row(_ name: String, unit: String, scale: Double, target: Row.Target,
                     _ statistic: @escaping (RoundResult, ServerKind) -> Double?) -> Row {
        let daemon = perRound(.daemon, statistic), floor = perRound(.floor, statistic), bare = perRound(.bare, statistic)
        let ratios = rounds.compactMap { round -> Double? in
            guard let d = statistic(round, .daemon), let f = statistic(round, .floor), f > 0 else { return nil }
            return d / f
        }
        return Row(name: name, unit: unit, daemon: Statistics.median(daemon) * scale,
                   floor: floor.isEmpty ? nil : Statistics.median(floor) * scale,
                   bare: bare.isEmpty ? nil : Statistics.median(bare) * scale,
                   ratio: ratios.isEmpty ? nil : Statistics.median(ratios), target: target)
    }

    var rows: [Row] {
        var rows: [Row] = []
        rows.append(row("round trip p50", unit: "us", scale: 1e6, target: .ratioAtMost(1.10)) {
            $0.roundTrips[$1].map { Statistics.percentile($0, 0.5) } })
        rows.append(row("round trip p99", unit: "us", scale: 1e6, target: .none) {
            $0.roundTrips[$1].map { Statistics.percentile($0, 0.99) } })
        rows.append(row("calls/s, 32 in flight", unit: "1/s", scale: 1, target: .ratioAtLeast(0.90)) {
            $0.callsPerSecond[$1] })
        rows.append(row("call -> PropertiesChanged p50", unit: "us", scale: 1e6, target: .ratioAtMost(1.10)) {
            $0.toSignal[$1].map { Statistics.percentile($0, 0.5) } })
        rows.append(row("call -> PropertiesChanged p99", unit: "us", scale: 1e6, target: .none) {
            $0.toSignal[$1].map { Statistics.percentile($0, 0.99) } })
        rows.append(cpuPerCall)
        rows.append(row("peak RSS", unit: "MiB", scale: 1.0 / 1_048_576, target: .valueAtMost(10)) {
            $0.peakResident[$1] })
        rows.append(row("idle wake-ups in 5 s", unit: "count", scale: 1, target: .valueAtMost(0)) {
            $0.idleWakeUps?[$1] })
        rows.append(row("exec -> name owned", unit: "ms", scale: 1e3, target: .valueAtMost(10)) {
            $0.startUp[$1] })
        if rounds.contains(where: { !$0.toAccessibleEvent.isEmpty }) {
            rows.append(accessibility(0.5, target: .ratioAtMost(1.5)))
            rows.append(accessibility(0.99, target: .none))
        }
        if let snapCoreNanoseconds {
            rows.append(Row(name: "SnapCore index(at:)", unit: "ns/op", daemon: snapCoreNanoseconds, floor: nil,
                            bare: nil, ratio: nil, target: .valueAtMost(5)))
        }
        return rows
    }

    /// CPU per call from the totals of every round: /proc counts in clock ticks (10 ms), so one
    /// round alone is too coarse, and the sum over rounds is what the machine really spent.
    private var cpuPerCall: Row {
        func total(_ kind: ServerKind) -> Double? {
            let seconds = rounds.reduce(0) { $0 + ($1.cpuSeconds[kind] ?? 0) }
            let calls = rounds.reduce(0) { $0 + ($1.calls[kind] ?? 0) }
            return calls > 0 ? seconds / Double(calls) * 1e6 : nil
        }
        let daemon = total(.daemon) ?? 0, floor = total(.floor)
        return Row(name: "server CPU per call", unit: "us", daemon: daemon, floor: floor, bare: total(.bare),
                   ratio: floor.flatMap { $0 > 0 ? daemon / $0 : nil }, target: .ratioAtMost(1.2))
    }

    /// snapsized's call -> accessible-value event against the floor's call -> PropertiesChanged,
    /// measured alternately in the same phase.
    private func accessibility(_ p: Double, target: Row.Target) -> Row {
        let measured = rounds.filter { !$0.toAccessibleEvent.isEmpty }
        let daemon = measured.map { Statistics.percentile($0.toAccessibleEvent, p) }
        let floor = measured.map { Statistics.percentile($0.floorToSignalBesideAccessibility, p) }
        let ratios = zip(daemon, floor).map { $0 / $1 }
        return Row(name: "call -> accessible-value event p\(Int(p * 100))", unit: "us",
                   daemon: Statistics.median(daemon) * 1e6, floor: Statistics.median(floor) * 1e6, bare: nil,
                   ratio: Statistics.median(ratios), target: target)
    }
}
