import AtSpi

/// What the quiet rule asks of the accessibility bus: AtSpi's `FocusWatch` in the daemon, a fake in tests.
protocol FocusProbe: AnyObject {
    /// The Value text and name of `object`, or nil when it has no Value (or did not answer in time).
    func shown(by object: AccessibleRef, reply: @escaping (FocusWatch.Shown?) -> Void)
    /// Watches `sender` leaving the bus (nil: none), reported through `FocusedValue.left`.
    func follow(_ sender: String?)
}

extension FocusWatch: FocusProbe {}

/// The daemon's quiet rule for a panel that speaks (docs/ACCESSIBILITY.md, "A panel that speaks").
///
/// A panel whose track has an AT-SPI Value (snapsize-panel on GTK 4.10+) shows the committed size as
/// that Value and follows every change, whoever made it; Orca speaks and brailles the value events of
/// its focused object. While such an object holds the accessibility focus, each commit is therefore
/// heard from it, and the daemon's announcement would be a second utterance: the speaker treats the
/// commit as spoken by a value event, as it does while the daemon's own slider is focused.
///
/// The rule: quiet while the object that last took the accessibility focus (`object:state-changed:
/// focused` 1 from another application) has a Value whose text, asked when the focus arrived, is one
/// of the daemon's value texts ("60 points" in its language), and the daemon's label as its name
/// ("Circle size", as the panel names its track): it shows this selection. Both, because a wrong
/// match would silence a change that nobody else speaks: another program's slider may well say
/// "60 points", but not while named after this selection. It ends as soon
/// as that object loses focus, another object (of any application, the daemon's own slider included)
/// takes it, or its application leaves the bus. Until the answer has come, and whenever the question
/// fails or times out, the daemon speaks: a doubt costs at most a second utterance, never silence.
/// A Value-less track (GTK 4.8) answers with an error, so the rule never fires for it.
final class FocusedValue {
    private let probe: FocusProbe
    /// The daemon's value texts and label (replaced by a reload that changes them).
    var valueTexts: [String]
    var label: String
    /// The object whose Value follows the selection and holds focus.
    private(set) var holder: AccessibleRef?
    /// The newest object to take focus, while its answer is awaited.
    private var asked: AccessibleRef?
    /// The object whose question is on the bus. At most one at a time: a focus taken meanwhile waits
    /// in `asked` and is asked about when that answer comes (only the newest), so an application
    /// sending focus events faster than it answers never piles questions up in the daemon.
    private var inFlight: AccessibleRef?

    init(probe: FocusProbe, valueTexts: [String], label: String) {
        self.probe = probe
        self.valueTexts = valueTexts
        self.label = label
    }

    /// Orca will speak the next commit from the focused object's value event.
    var speaks: Bool { holder != nil }

    /// `object` (of another application) took focus: the holder, if any, has lost it; ask about it.
    func focused(_ object: AccessibleRef) {
        release()
        asked = object
        if inFlight == nil { ask(object) }
    }

    private func ask(_ object: AccessibleRef) {
        inFlight = object
        probe.shown(by: object) { [weak self] shown in self?.answered(object, shown) }
    }

    /// `object` lost focus.
    func unfocused(_ object: AccessibleRef) {
        if asked == object { asked = nil }
        if holder == object { release() }
    }

    /// The daemon's own slider took focus (its own value events speak then).
    func ownFocus() {
        asked = nil
        release()
    }

    /// The connection `sender` left the bus.
    func left(_ sender: String) {
        if asked?.name == sender { asked = nil }
        if holder?.name == sender { release() }
    }

    private func answered(_ object: AccessibleRef, _ shown: FocusWatch.Shown?) {
        inFlight = nil
        // A later focus (or the object losing it) has made this answer moot; the newest is asked now.
        guard asked == object else {
            if let asked { ask(asked) }
            return
        }
        asked = nil
        guard let shown, valueTexts.contains(shown.valueText), shown.name == label else { return }
        holder = object
        probe.follow(object.name)
    }

    private func release() {
        guard holder != nil else { return }
        holder = nil
        probe.follow(nil)
    }
}
