import SnapCLI

/// The key-press rows: each client's figure (the median over rounds) and snapsizectl's ratio to each
/// other client (the median over rounds of that round's ratio), with the target against dbus-send.
struct KeyPressRow {
    let name: String
    let unit: String
    let values: [KeyPressClient: Double]
    let ratios: [KeyPressClient: Double]
    /// The most snapsizectl may take, as a ratio to dbus-send's figure.
    let atMostDbusSend: Double?

    var met: Bool? {
        guard let limit = atMostDbusSend, let ratio = ratios[.dbusSend] else { return nil }
        return ratio <= limit
    }

    var targetText: String {
        atMostDbusSend.map { "<= \(format($0, 2))x dbus-send" } ?? ""
    }
}

struct KeyPressSummary {
    /// Each round's samples per client (rounds without the phase left out).
    let rounds: [[KeyPressClient: [KeyPressSample]]]

    /// A key press is heard once the process has stepped the size and gone: snapsizectl within this
    /// ratio of the time of the plainest client, libdbus's own dbus-send (issue 34).
    static let wallTarget = 1.20

    var rows: [KeyPressRow] {
        [
            percentileRow("exec -> exit p50", 0.5, target: Self.wallTarget),
            percentileRow("exec -> exit p90", 0.9, target: nil),
            cpuRow
        ]
    }

    private func percentileRow(_ name: String, _ p: Double, target: Double?) -> KeyPressRow {
        func statistic(_ round: [KeyPressClient: [KeyPressSample]], _ client: KeyPressClient) -> Double?
        {
            round[client].map { Statistics.percentile($0.map(\.wall), p) }
        }
        var values: [KeyPressClient: Double] = [:], ratios: [KeyPressClient: Double] = [:]
        for client in KeyPressClient.allCases {
            let perRound = rounds.compactMap { statistic($0, client) }
            if !perRound.isEmpty { values[client] = Statistics.median(perRound) * 1e3 }
        }
        for other in KeyPressClient.ratioColumns {
            let perRound = rounds.compactMap { round -> Double? in
                guard let mine = statistic(round, .snapsizectl), let theirs = statistic(round, other),
                    theirs > 0
                else { return nil }
                return mine / theirs
            }
            if !perRound.isEmpty { ratios[other] = Statistics.median(perRound) }
        }
        return KeyPressRow(
            name: name, unit: "ms", values: values, ratios: ratios, atMostDbusSend: target)
    }

    /// CPU (user + system) per process from the totals of every round: one process's rusage is a few
    /// milliseconds, the sum over all of them is what the machine spent.
    private var cpuRow: KeyPressRow {
        var values: [KeyPressClient: Double] = [:], ratios: [KeyPressClient: Double] = [:]
        for client in KeyPressClient.allCases {
            let samples = rounds.flatMap { $0[client] ?? [] }
            if !samples.isEmpty {
                values[client] = samples.reduce(0) { $0 + $1.cpu } / Double(samples.count) * 1e3
            }
        }
        for other in KeyPressClient.ratioColumns {
            if let mine = values[.snapsizectl], let theirs = values[other], theirs > 0 {
                ratios[other] = mine / theirs
            }
        }
        return KeyPressRow(
            name: "CPU per process", unit: "ms", values: values, ratios: ratios, atMostDbusSend: nil)
    }

    static func table(_ rows: [KeyPressRow], header: String) -> String {
        let shown = KeyPressClient.ratioColumns.filter { client in
            rows.contains { $0.values[client] != nil }
        }
        var titles = ["", KeyPressClient.snapsizectl.rawValue]
        for other in shown { titles += [other.rawValue, "ratio"] }
        titles.append("targets")
        let cells = rows.map { row in
            var line = [row.name + " (" + row.unit + ")", figure(row.values[.snapsizectl])]
            for other in shown {
                line += [figure(row.values[other]), row.ratios[other].map { format($0, 2) + "x" } ?? "-"]
            }
            line.append(
                row.atMostDbusSend == nil
                    ? "" : row.targetText + " " + (row.met.map { $0 ? "met" : "MISSED" } ?? "?"))
            return line
        }
        return Report.grid([titles] + cells, header: header)
    }

    static func json(_ rows: [KeyPressRow]) -> JSON {
        func number(_ value: Double?) -> JSON {
            guard let value, value.isFinite else { return .null }
            return .double((value * 10_000).rounded() / 10_000)
        }
        return .array(
            rows.map { row in
                var members: [(String, JSON)] = [
                    ("name", .string(row.name)), ("unit", .string(row.unit)),
                    (
                        "values",
                        .object(KeyPressClient.allCases.map { ($0.rawValue, number(row.values[$0])) })
                    ),
                    (
                        "ratios",
                        .object(
                            KeyPressClient.ratioColumns.map { ($0.rawValue, number(row.ratios[$0])) })
                    )
                ]
                if row.atMostDbusSend != nil {
                    members.append(
                        (
                            "targets",
                            .array([
                                .object([
                                    ("target", .string(row.targetText)),
                                    ("met", row.met.map(JSON.bool) ?? .null)
                                ])
                            ])
                        ))
                }
                return .object(members)
            })
    }
}
