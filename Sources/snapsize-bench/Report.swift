import SnapCLI

/// One line of a table: every server's figure, snapsized's ratio to each peer, and the targets.
struct Row {
    struct Target {
        enum Measure {
            /// snapsized / that server's figure.
            case ratioTo(ServerKind)
            /// snapsized's own figure.
            case value
        }
        let measure: Measure
        let atMost: Bool
        let limit: Double

        static func ratio(to kind: ServerKind, atMost limit: Double) -> Target {
            Target(measure: .ratioTo(kind), atMost: true, limit: limit)
        }
        static func ratio(to kind: ServerKind, atLeast limit: Double) -> Target {
            Target(measure: .ratioTo(kind), atMost: false, limit: limit)
        }
        static func value(atMost limit: Double) -> Target {
            Target(measure: .value, atMost: true, limit: limit)
        }
    }

    let name: String
    let unit: String
    /// Median over rounds per server; absent when that server has no such figure.
    let values: [ServerKind: Double]
    /// snapsized / server, the median over rounds of each round's ratio (floor, sd-bus, GDBus).
    let ratios: [ServerKind: Double]
    let targets: [Target]

    /// Whether each target is met (nil when its figure is missing).
    func met(_ target: Target) -> Bool? {
        let figure: Double?
        switch target.measure {
        case .ratioTo(let kind): figure = ratios[kind]
        case .value: figure = values[.daemon]
        }
        guard let figure else { return nil }
        return target.atMost ? figure <= target.limit : figure >= target.limit
    }

    func text(_ target: Target) -> String {
        let comparison = target.atMost ? "<=" : ">="
        switch target.measure {
        case .ratioTo(let kind): return "\(comparison) \(format(target.limit, 2))x \(kind.title)"
        case .value: return target.limit == 0 ? "0" : "\(comparison) \(format(target.limit, 0)) \(unit)"
        }
    }
}

/// Fixed decimals without Foundation's formatters.
func format(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale)
    var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let fraction = String(scaled % Int(scale))
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return text
}

/// A figure with as many decimals as it deserves.
func figure(_ value: Double?) -> String {
    guard let value else { return "-" }
    if value == 0 { return "0" }
    if abs(value) >= 1000 { return format(value, 0) }
    if abs(value) >= 100 { return format(value, 1) }
    return format(value, 2)
}

enum Report {
    /// The servers snapsized's figures are divided by, in table order: the floor and the peers, and
    /// the baseline (`--baseline`) when it ran.
    static let ratioColumns: [ServerKind] = [.floor, .sdbus, .gdbus, .baseline]

    static func table(_ rows: [Row], header: String) -> String {
        let shown = ratioColumns.filter { kind in
            kind != .baseline || rows.contains { $0.values[kind] != nil }
        }
        var titles = ["", ServerKind.daemon.title]
        for peer in shown { titles += [peer.title, "ratio"] }
        titles += [ServerKind.bare.title, "targets"]
        let cells = rows.map { row in
            var line = [row.name + " (" + row.unit + ")", figure(row.values[.daemon])]
            for peer in shown {
                line += [figure(row.values[peer]), row.ratios[peer].map { format($0, 2) + "x" } ?? "-"]
            }
            line.append(figure(row.values[.bare]))
            line.append(
                row.targets.map { target in
                    row.text(target) + " " + (row.met(target).map { $0 ? "met" : "MISSED" } ?? "?")
                }.joined(separator: ", "))
            return line
        }
        return grid([titles] + cells, header: header)
    }

    /// `header`, then the first line of `all` (the titles), a line of dashes and the other lines, in
    /// columns: the first and last left-aligned, the figures between them right-aligned.
    static func grid(_ all: [[String]], header: String) -> String {
        let titles = all[0]
        let widths = titles.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        let last = titles.count - 1
        var text = header + "\n"
        for (index, line) in all.enumerated() {
            let padded = line.indices.map { column in
                let cell = line[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column == last ? cell + pad : pad + cell
            }
            text += padded.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
            if index == 0 {
                text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            }
        }
        return text
    }

    /// The same figures as one JSON object (the CLI's ordered writer, so keys keep their order):
    /// one entry per medium with its context and rows.
    static func json(_ tables: [(String, [(String, JSON)], [Row])], context: [(String, JSON)]) -> String
    {
        func number(_ value: Double?) -> JSON {
            guard let value, value.isFinite else { return .null }
            return .double((value * 10_000).rounded() / 10_000)
        }
        let media = tables.map { name, tableContext, rows in
            let entries = rows.map { row in
                JSON.object([
                    ("name", .string(row.name)), ("unit", .string(row.unit)),
                    (
                        "values",
                        .object(ServerKind.allCases.map { ($0.rawValue, number(row.values[$0])) })
                    ),
                    ("ratios", .object(ratioColumns.map { ($0.rawValue, number(row.ratios[$0])) })),
                    (
                        "targets",
                        .array(
                            row.targets.map { target in
                                .object([
                                    ("target", .string(row.text(target))),
                                    ("met", row.met(target).map(JSON.bool) ?? .null)
                                ])
                            })
                    )
                ])
            }
            return (name, JSON.object(tableContext + [("rows", .array(entries))]))
        }
        return JSON.object(context + media).text + "\n"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
