/// What the accessible slider shows, and the only two ways it may change it.
///
/// The adapter keeps no copy of the value: every read goes through here, so the slider can never
/// disagree with the owner of the selection. The value is an *index* (0 … maximumIndexValue);
/// rounding and clamping a written value are the owner's business, not the adapter's.
public protocol SliderSource: AnyObject {
    /// The accessible name ("Circle size").
    var label: String { get }
    /// The accessible description ("One of 20, 40, 60, 80 or 100 points").
    var choicesDescription: String { get }
    /// The shown index as the Value interface's CurrentValue.
    var indexValue: Double { get }
    var minimumIndexValue: Double { get }
    var maximumIndexValue: Double { get }
    /// What a screen reader speaks for the shown value ("60 points").
    var valueText: String { get }
    /// The actions' localized names and descriptions ("Larger", "Selects the next larger size").
    var largerAction: (name: String, description: String) { get }
    var smallerAction: (name: String, description: String) { get }
    var shownSize: Int { get }
    var committedSize: Int { get }
    /// Width of the track in pixels, used as the Component extents.
    var trackWidth: Double { get }
    /// Commits the index nearest to `value` for the bus client `sender`; false when refused
    /// (nothing changed then).
    func setIndexValue(_ value: Double, by sender: String) -> Bool
    /// Steps the committed index for `sender`; false when refused or already at that end.
    func step(by steps: Int, sender: String) -> Bool
}
