import Testing
@_spi(Testing) import SizeSelectorContract
import SnapCore
@testable import SnapPanel

/// The panel's pointer rules without a display: the x rounding, latest-wins previews, the drag's
/// phases (release commits from the release x; a cancelled drag commits nothing), and what is shown.
@Suite("Panel pointer rules")
struct PointerRulesTests {
    static let ltr = DragRules.Geometry(trackWidth: 336, rightToLeft: false)
    static let rtl = DragRules.Geometry(trackWidth: 336, rightToLeft: true)

    @Test("x is rounded to 1/1024 so that GTK's float noise never flips a tie: 50.99999 commits as 51")
    func rounding() throws {
        #expect(TrackPosition.rounded(249.99998474121094) == 250)
        #expect(TrackPosition.rounded(89.99999237060547) == 90)
        #expect(TrackPosition.rounded(50.99999) == 51)
        #expect(TrackPosition.rounded(51.00001) == 51)
        #expect(TrackPosition.rounded(12.5) == 12.5)  // a point on the grid stays where it is
        #expect(TrackPosition.rounded(-10.0000001) == -10)
        #expect(TrackPosition.rounded(.infinity) == .infinity)  // passed on for the daemon to refuse
        // The article's tie at 51 keeps its rule through the daemon's own mapping.
        let snapper = Snapper()
        #expect(try snapper.index(at: 50.99999) == 0)
        #expect(try snapper.index(at: TrackPosition.rounded(50.99999)) == 1)
        // Every x of the article's table, with float noise either side, snaps as the article says.
        for (x, index) in [(-10.0, 0), (12, 0), (51, 1), (90, 1), (168, 2), (324, 4), (350, 4)] {
            for noise in [-1e-5, 0, 1e-5] {
                #expect(
                    try snapper.index(at: TrackPosition.rounded(x + noise)) == index, "x \(x + noise)")
            }
        }
    }

    @Test("a right-to-left track mirrors x: the first size is at the right end")
    func mirror() {
        #expect(TrackPosition.daemonX(widgetX: 324, trackWidth: 336, rightToLeft: true) == 12)
        #expect(TrackPosition.daemonX(widgetX: 12, trackWidth: 336, rightToLeft: true) == 324)
        #expect(TrackPosition.widgetX(daemonX: 90, trackWidth: 336, rightToLeft: true) == 246)
        #expect(TrackPosition.widgetX(daemonX: 90, trackWidth: 336, rightToLeft: false) == 90)
    }

    @Test("latest wins: one Preview in flight, only the newest x waits, a flood sends two")
    func latestWins() {
        var queue = PreviewQueue()
        #expect(queue.request(100) == 100)
        // 1,000 motion events while the first Preview is out: none is sent, the newest waits.
        for x in 101...1100 { #expect(queue.request(Double(x)) == nil) }
        #expect(queue.waiting == 1100)
        #expect(queue.answered() == 1100)  // sent next, and now in flight
        #expect(queue.inFlight)
        #expect(queue.answered() == nil)
        #expect(!queue.inFlight)
        #expect(queue.request(5) == 5)
    }

    @Test("a release drops the waiting x; a preview after the drag waits for the one still in flight")
    func dropOnRelease() {
        var queue = PreviewQueue()
        #expect(queue.request(10) == 10)
        #expect(queue.request(20) == nil)
        queue.dropWaiting()  // Commit sent
        #expect(queue.answered() == nil)
        #expect(queue == PreviewQueue())
        #expect(queue.request(30) == 30)
        #expect(queue.request(40) == nil)
        queue.dropWaiting()
        #expect(queue.inFlight && queue.waiting == nil)
    }

    @Test("track mode: press jumps and previews, motion previews, release commits from the release x")
    func trackDrag() {
        var rules = DragRules(mode: .track)
        #expect(rules.begin(widgetX: 168, thumbX: 168, radius: 12, geometry: Self.ltr) == .preview(168))
        #expect(rules.isDragging)
        #expect(rules.update(offset: 81.99998474121094, geometry: Self.ltr) == .preview(250))
        #expect(rules.update(offset: 200, geometry: Self.ltr) == .preview(368))  // beyond the end: the daemon clamps
        // Released at 51 after a preview at 368: the commit is from 51.
        #expect(rules.end(offset: -117.00001, geometry: Self.ltr) == .commit(51))
        #expect(!rules.isDragging)
        #expect(rules.update(offset: 3, geometry: Self.ltr) == nil)
    }

    @Test(
        "a cancel (Escape, focus lost, lost grab) sends Cancel once; GTK's end after it commits nothing")
    func cancelled() {
        var rules = DragRules(mode: .track)
        _ = rules.begin(widgetX: 300, thumbX: 168, radius: 12, geometry: Self.ltr)
        #expect(rules.cancel() == .cancel)
        #expect(rules.cancel() == nil)
        #expect(rules.update(offset: 10, geometry: Self.ltr) == nil)
        #expect(rules.end(offset: 10, geometry: Self.ltr) == nil)
        // The next press drags again.
        #expect(rules.begin(widgetX: 90, thumbX: 168, radius: 12, geometry: Self.ltr) == .preview(90))
    }

    @Test(
        "a drag whose preview the daemon refused previews nothing more, and its release commits nothing")
    func abandoned() {
        var rules = DragRules(mode: .track)
        #expect(rules.begin(widgetX: 12, thumbX: 168, radius: 12, geometry: Self.ltr) == .preview(12))
        rules.abandon()
        #expect(rules.update(offset: 10, geometry: Self.ltr) == nil)
        #expect(rules.end(offset: 10, geometry: Self.ltr) == nil)
        #expect(rules.begin(widgetX: 90, thumbX: 168, radius: 12, geometry: Self.ltr) == .preview(90))
    }

    @Test("thumb mode: a press on the thumb keeps the grab offset; a press elsewhere does nothing")
    func thumbDrag() {
        var rules = DragRules(mode: .thumb)
        // Taken 10 points right of the thumb's centre (168): the position is centre + translation.
        #expect(rules.begin(widgetX: 178, thumbX: 168, radius: 12, geometry: Self.ltr) == .preview(168))
        #expect(rules.update(offset: 78, geometry: Self.ltr) == .preview(246))
        #expect(rules.end(offset: 156, geometry: Self.ltr) == .commit(324))
        #expect(rules.begin(widgetX: 300, thumbX: 168, radius: 12, geometry: Self.ltr) == nil)
        #expect(rules.update(offset: 5, geometry: Self.ltr) == nil)
        #expect(rules.end(offset: 5, geometry: Self.ltr) == nil)
    }

    @Test("right to left: a press at the left end previews the largest size's x")
    func rightToLeftDrag() {
        var rules = DragRules(mode: .track)
        #expect(rules.begin(widgetX: 12, thumbX: 168, radius: 12, geometry: Self.rtl) == .preview(324))
        #expect(rules.end(offset: 312, geometry: Self.rtl) == .commit(12))
    }

    static func state(
        selected: Int = 2, shown: Int? = nil, previewing: Bool = false,
        by: ClientIdentity = .unknown
    ) -> SelectorState {
        let sizes = [20, 40, 60, 80, 100]
        return SelectorState(
            sizes: sizes, selectedIndex: selected, selectedSize: sizes[selected],
            shownIndex: shown ?? selected,
            shownSize: sizes[shown ?? selected], previewing: previewing, valueText: "",
            valueTexts: sizes.map { "\($0) points" }, label: "Circle size", trackWidth: 336,
            trackInset: 12,
            layout: "ordinal", changedBy: by)
    }

    @Test("what is shown: thumb and Selected follow the preview, circle and Applied the committed size")
    func shown() {
        let view = PanelView(
            state: Self.state(
                selected: 2, shown: 4, previewing: true,
                by: ClientIdentity(uniqueName: ":1.5", pid: 0, command: "")), ownName: ":1.5")
        #expect(view.thumbIndex == 4 && view.circleSize == 60)
        #expect(view.selectedText == "Selected size: 100 points")
        #expect(view.appliedText == "Applied size: 60 points")
        #expect(!view.smallerEnabled && !view.largerEnabled)  // a preview is open
        #expect(view.holderNotice == nil)  // the panel's own
        #expect(view.tickPositions == [12, 90, 168, 246, 324])
        let ends = PanelView(state: Self.state(selected: 0), ownName: ":1.5")
        #expect(!ends.smallerEnabled && ends.largerEnabled)
        #expect(!PanelView(state: Self.state(selected: 4), ownName: "").largerEnabled)
    }

    @Test("another client's preview names it, made safe: no control or bidi characters reach the window")
    func holder() {
        let other = ClientIdentity(
            uniqueName: ":1.9", pid: 4242, command: "snapsizectl drag\u{202E}\u{1B}[2J")
        let view = PanelView(state: Self.state(shown: 0, previewing: true, by: other), ownName: ":1.5")
        // Replaced as everywhere a person reads a client's words (Texts.printable), not silently dropped.
        #expect(view.holderNotice == "Preview held by snapsizectl drag??[2J (pid 4242)")
    }
}
