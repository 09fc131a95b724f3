/// The words around a size: what the control is called and the unit its sizes are in.
public struct Presentation: Equatable, Sendable {
    public let label: String
    public let unit: String

    public init(label: String = "Circle size", unit: String = "points") {
        self.label = label
        self.unit = unit
    }

    /// "60 points": what a screen reader speaks and what the CLI prints.
    public func valueText(size: Int) -> String { "\(size) \(unit)" }

    /// "One of 20, 40, 60, 80, 100 points": the accessible description.
    public func choices(_ sizes: SizeSet) -> String {
        "One of " + sizes.sizes.map(String.init).joined(separator: ", ") + " " + unit
    }
}
