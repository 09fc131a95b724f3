import SnapCLI

/// One line of the table: the daemon's figure, the floor's, their ratio, and the target.
struct Row {
    enum Target {
        /// daemon / floor must stay at or below this.
        case ratioAtMost(Double)
        /// daemon / floor must stay at or above this.
        case ratioAtLeast(Double)
        /// the daemon's own figure must stay at or below this.
        case valueAtMost(Double)
        /// reported for information.
        case none
    }

    let name: String
    let unit: String
    let daemon: Double
    let floor: Double?
    let bare: Double?
    let ratio: Double?
    let target: Target

    var met: Bool? {
        switch target {
        case .ratioAtMost(let limit): ratio.map { $0 <= limit }
        case .ratioAtLeast(let limit): ratio.map { $0 >= limit }
        case .valueAtMost(let limit): daemon <= limit
        case .none: nil
        }
    }

    var targetText: String {
        switch target {
        case .ratioAtMost(let limit): "<= \(format(limit, 2))x"
        case .ratioAtLeast(let limit): ">= \(format(limit, 2))x"
        case .valueAtMost(let limit): limit == 0 ? "0" : "<= \(format(limit, 0)) \(unit)"
        case .none: ""
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
    static func table(_ rows: [Row], header: String) -> String {
        let titles = ["", "snapsized", "floor", "ratio", "target", "", "bare floor"]
        let cells = rows.map { row in
            [row.name + " (" + row.unit + ")", figure(row.daemon), figure(row.floor),
             row.ratio.map { format($0, 2) + "x" } ?? "-", row.targetText,
             row.met.map { $0 ? "met" : "MISSED" } ?? "", figure(row.bare)]
        }
        let all = [titles] + cells
        let widths = titles.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var text = header + "\n"
        for (index, line) in all.enumerated() {
            let padded = line.indices.map { column in
                let cell = line[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column == 5 ? cell + pad : pad + cell
            }
            text += padded.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
            if index == 0 {
                text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            }
        }
        return text
    }

    /// The same figures as one JSON object (the CLI's ordered writer, so keys keep their order).
    static func json(_ rows: [Row], context: [(String, JSON)]) -> String {
        func number(_ value: Double?) -> JSON {
            guard let value, value.isFinite else { return .null }
            return .double((value * 10_000).rounded() / 10_000)
        }
        let entries = rows.map { row in
            JSON.object([
                ("name", .string(row.name)), ("unit", .string(row.unit)), ("daemon", number(row.daemon)),
                ("floor", number(row.floor)), ("ratio", number(row.ratio)), ("target", .string(row.targetText)),
                ("met", row.met.map(JSON.bool) ?? .null), ("bareFloor", number(row.bare)),
            ])
        }
        return JSON.object(context + [("rows", .array(entries))]).text + "\n"
    }
}

private extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
