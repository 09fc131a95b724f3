import SizeSelectorContract
import SnapCore
import SnapTexts

/// What the window shows for one state of the daemon, without GTK: the daemon owns the selection, the
/// panel draws it. The thumb and "Selected size" follow the shown size (a preview, anyone's); the circle
/// and "Applied size" the committed one.
public struct PanelView: Equatable, Sendable {
    public var state: SelectorState
    /// The panel's own unique bus name: a preview whose ChangedBy names it is the panel's own drag.
    public var ownName: String

    public init(state: SelectorState, ownName: String) {
        self.state = state
        self.ownName = ownName
    }

    var lastIndex: Int { max(state.sizes.count - 1, 0) }

    /// The committed index, within the sizes (the track's accessible value).
    public var committedIndex: Int { min(max(state.selectedIndex, 0), lastIndex) }

    /// The index the thumb is drawn at.
    public var thumbIndex: Int { min(max(state.shownIndex, 0), lastIndex) }
    /// The circle's diameter, in points.
    public var circleSize: Int { state.selectedSize }

    public var selectedText: String { PanelTexts.selected(valueText(state.shownIndex)) }
    public var appliedText: String { PanelTexts.applied(valueText(state.selectedIndex)) }
    /// The circle's accessible name: what it shows, in words.
    public var circleName: String { PanelTexts.circle(valueText(state.selectedIndex)) }

    /// Smaller and Larger, as in the article: not at their end, and not while a preview is open.
    public var smallerEnabled: Bool { !state.previewing && state.selectedIndex > 0 }
    public var largerEnabled: Bool { !state.previewing && state.selectedIndex < lastIndex }

    /// Another client's preview (a second panel, `snapsizectl drag`, a script): who holds it.
    public var holderNotice: String? {
        guard state.previewing, state.changedBy.isKnown, state.changedBy.uniqueName != ownName else {
            return nil
        }
        let holder = state.changedBy
        return PanelTexts.previewHeld(
            by: Texts.clientName(
                busName: SafeText.shown(holder.uniqueName), pid: holder.pid,
                command: SafeText.shown(holder.command)))
    }

    /// The daemon's words for a size ("60 points"); the number alone if a daemon sent too few.
    public func valueText(_ index: Int) -> String {
        if state.valueTexts.indices.contains(index) { return SafeText.shown(state.valueTexts[index]) }
        return state.sizes.indices.contains(index) ? String(state.sizes[index]) : ""
    }

    /// The one mapping of SnapCore, with the daemon's sizes, track and layout: where each tick is drawn.
    public var snapper: Snapper? {
        guard let sizes = try? SizeSet(state.sizes),
            let track = try? Track(width: state.trackWidth, inset: state.trackInset)
        else { return nil }
        return Snapper(sizes: sizes, track: track, layout: Layout(rawValue: state.layout) ?? .ordinal)
    }

    /// The daemon x of each tick's centre, in order.
    public var tickPositions: [Double] {
        guard let snapper else { return [] }
        return state.sizes.indices.compactMap { try? snapper.position(of: $0) }
    }
}

/// Text from the bus (a client's command, the daemon's words) as the panel shows it: made printable by
/// the project's one rule (`Texts.printable`: controls and bidi formatting replaced, so a command line
/// cannot reorder or hide what a person reads), and bounded in length for a label.
public enum SafeText {
    public static let maximumLength = 200

    public static func shown(_ text: String) -> String {
        let printable = Texts.printable(text)
        return printable.count > maximumLength
            ? String(printable.prefix(maximumLength)) + "…" : printable
    }
}
