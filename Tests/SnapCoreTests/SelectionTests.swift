import Testing
@testable import SnapCore

/// Every transition of the selection state machine, asserting both the new state and the
/// reported change (adapters emit exactly what is reported, so a wrong report is a wrong event).
@Suite("Selection state machine")
struct SelectionTests {
    let alice = PreviewOwner(":1.10")
    let bob = PreviewOwner(":1.11")

    func start(at index: Int = 2) throws -> Selection { try Selection(committed: index) }

    @Test("a valid start index is required")
    func initialIndex() throws {
        #expect(throws: SnapError.indexOutOfRange(index: 5, count: 5)) { try Selection(committed: 5) }
        let selection = try start()
        #expect(selection.committed == 2 && selection.shown == 2 && !selection.isPreviewing)
        #expect(selection.committedSize == 60)
    }

    @Test("preview shows the snapped index and leaves the committed one alone")
    func preview() throws {
        var selection = try start()
        let change = try selection.preview(x: 250, by: alice)
        #expect(change == SelectionChange(shown: 3, previewing: true))
        #expect(selection.committed == 2 && selection.shown == 3 && selection.shownSize == 80)
        // Moving within the same bucket changes nothing that anyone could see.
        #expect(try selection.preview(x: 255, by: alice) == .none)
        // Moving back over the committed index changes the shown index only.
        #expect(try selection.preview(x: 168, by: alice) == SelectionChange(shown: 2))
    }

    @Test("commit uses its own x, not the last preview")
    func commitUsesReleaseX() throws {
        var selection = try start()
        _ = try selection.preview(x: 324, by: alice)
        let change = try selection.commit(x: 90, by: alice)
        #expect(change == SelectionChange(committed: 1, shown: 1, previewing: false))
        #expect(selection.committed == 1 && !selection.isPreviewing)
    }

    @Test("commit at the previewed index reports only the commit and the end of the preview")
    func commitSame() throws {
        var selection = try start()
        _ = try selection.preview(x: 324, by: alice)
        #expect(
            try selection.commit(x: 324, by: alice) == SelectionChange(committed: 4, previewing: false))
    }

    @Test("commit with no preview open is a tap")
    func tap() throws {
        var selection = try start()
        #expect(try selection.commit(x: 12, by: bob) == SelectionChange(committed: 0, shown: 0))
        #expect(try selection.commit(x: 12, by: bob) == .none)
    }

    @Test("cancel restores the committed index")
    func cancel() throws {
        var selection = try start()
        _ = try selection.preview(x: 12, by: alice)
        #expect(try selection.cancel(by: alice) == SelectionChange(shown: 2, previewing: false))
        #expect(selection.committed == 2 && selection.preview == nil)
        // With nothing open, cancel does nothing and is not an error.
        #expect(try selection.cancel(by: bob) == .none)
    }

    @Test("another client's preview, commit and cancel are refused and change nothing")
    func otherClient() throws {
        var selection = try start()
        _ = try selection.preview(x: 12, by: alice)
        let before = selection
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.preview(x: 324, by: bob) }
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.commit(x: 324, by: bob) }
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.cancel(by: bob) }
        #expect(selection == before)
    }

    @Test("steps and sets are refused while a preview is open")
    func refusedDuringPreview() throws {
        var selection = try start()
        _ = try selection.preview(x: 12, by: alice)
        let before = selection
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.step(by: 1) }
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.set(index: 1) }
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.set(size: 40) }
        #expect(throws: SnapError.previewActive(owner: alice)) { try selection.set(indexValue: 1) }
        #expect(selection == before)
    }

    @Test("the owner vanishing ends its preview like cancel; others are ignored")
    func vanish() throws {
        var selection = try start()
        _ = try selection.preview(x: 324, by: alice)
        #expect(selection.ownerVanished(bob) == .none)
        #expect(selection.isPreviewing)
        #expect(selection.ownerVanished(alice) == SelectionChange(shown: 2, previewing: false))
        #expect(selection.committed == 2)
        #expect(selection.ownerVanished(alice) == .none)
    }

    @Test("endPreview (timeout, shutdown) ends anyone's preview")
    func endPreview() throws {
        var selection = try start()
        #expect(selection.endPreview() == .none)
        _ = try selection.preview(x: 90, by: bob)
        #expect(selection.endPreview() == SelectionChange(shown: 2, previewing: false))
    }

    @Test(
        "steps clamp at the ends and say so",
        arguments: [
            // (start, steps, end, atLimit)
            (2, 1, 3, false), (3, 1, 4, false), (4, 1, 4, true), (0, -1, 0, true), (1, -1, 0, false),
            (2, 5, 4, true), (2, -5, 0, true), (2, 0, 2, false), (2, Int.max, 4, true),
            (2, Int.min, 0, true),
            (4, Int.max, 4, true), (0, Int.min, 0, true)
        ])
    func steps(start index: Int, steps: Int, end: Int, atLimit: Bool) throws {
        var selection = try start(at: index)
        let result = try selection.step(by: steps)
        #expect(selection.committed == end)
        #expect(result.atLimit == atLimit)
        let moved = end == index ? SelectionChange.none : SelectionChange(committed: end, shown: end)
        #expect(result.change == moved)
    }

    @Test("set index commits, refuses indexes beyond the list and changes nothing then")
    func setIndex() throws {
        var selection = try start()
        #expect(try selection.set(index: 0) == SelectionChange(committed: 0, shown: 0))
        #expect(try selection.set(index: 0) == .none)
        #expect(throws: SnapError.indexOutOfRange(index: 5, count: 5)) { try selection.set(index: 5) }
        #expect(throws: SnapError.indexOutOfRange(index: -1, count: 5)) { try selection.set(index: -1) }
        #expect(selection.committed == 0)
    }

    @Test("set size snaps to the nearest allowed size", arguments: [(57, 2), (50, 2), (1, 0), (1000, 4)])
    func setSize(size: Int, index: Int) throws {
        var selection = try start(at: 0)
        _ = try selection.set(size: size)
        #expect(selection.committed == index)
    }

    @Test("an index value write rounds, clamps and refuses non-finite values")
    func indexValue() throws {
        var selection = try start()
        #expect(try selection.set(indexValue: 3.6) == SelectionChange(committed: 4, shown: 4))
        #expect(throws: SnapError.nonFinite(what: .indexValue)) { try selection.set(indexValue: .nan) }
        #expect(selection.committed == 4)
    }

    @Test("non-finite x in preview or commit is refused and leaves an open preview open")
    func nonFiniteGesture() throws {
        var selection = try start()
        _ = try selection.preview(x: 90, by: alice)
        let before = selection
        #expect(throws: SnapError.self) { try selection.preview(x: .nan, by: alice) }
        #expect(throws: SnapError.self) { try selection.commit(x: .infinity, by: alice) }
        #expect(selection == before)
    }

    @Test(
        "a new list keeps the committed size if allowed, else takes the nearest (ties to the larger), and drops the preview"
    )
    func movedToNewList() throws {
        var selection = try start()  // 60 of 20...100
        _ = try selection.preview(x: 324, by: alice)
        let ties = selection.rebased(
            on: Snapper(sizes: try SizeSet([10, 30, 50, 70]), track: try Track(width: 200)))
        #expect(
            ties.committedSize == 70 && ties.committed == 3, "50 and 70 are both 10 from 60: the larger")
        #expect(!ties.isPreviewing && ties.shown == 3)
        #expect(ties.snapper.track.width == 200)
        let kept = selection.rebased(on: Snapper(sizes: try SizeSet([5, 60, 61])))
        #expect(kept.committedSize == 60 && kept.committed == 1)
        #expect(
            selection.rebased(on: Snapper(sizes: try SizeSet([100, 200]))).committedSize == 100,
            "below the list: its first")
        #expect(selection.rebased(on: Snapper(sizes: try SizeSet([-9, 59]))).committedSize == 59)
        #expect(
            selection.rebased(on: selection.snapper) == (try start()),
            "the same list: the same selection, no preview")
    }
}
