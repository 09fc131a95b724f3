import Testing
import DBusKit
@_spi(Testing) import SizeSelectorContract
@testable import SnapCLI
import SnapTexts

/// A client that answers from memory, to test commands without a bus.
final class FakeClient: SizeSelectorClient {
    var current = SelectorState(
        sizes: [20, 40, 60, 80, 100], selectedIndex: 2, selectedSize: 60, shownIndex: 2, shownSize: 60,
        previewing: false, valueText: "60 points",
        valueTexts: ["20 points", "40 points", "60 points", "80 points", "100 points"],
        label: "Circle size", trackWidth: 336,
        trackInset: 12, layout: "ordinal")
    var refusal: MethodError?

    func state() throws(MethodError) -> SelectorState { current }
    func step(by steps: Int) throws(MethodError) -> SelectorReply {
        if let refusal { throw refusal }
        let index = min(max(current.selectedIndex + steps, 0), current.sizes.count - 1)
        let atLimit = index != current.selectedIndex + steps
        current.selectedIndex = index
        current.selectedSize = current.sizes[index]
        return SelectorReply(index: index, size: current.sizes[index], atLimit: atLimit)
    }
    func setIndex(_ index: Int) throws(MethodError) -> SelectorReply {
        try step(by: index - current.selectedIndex)
    }
    func setSize(_ size: Int) throws(MethodError) -> SelectorReply {
        throw MethodError(.failed, "not faked")
    }
    func preview(x: Double) throws(MethodError) -> SelectorReply {
        throw MethodError(.failed, "not faked")
    }
    func commit(x: Double) throws(MethodError) -> SelectorReply {
        throw MethodError(.failed, "not faked")
    }
    func cancel() throws(MethodError) {}
    func focus() throws(MethodError) { if let refusal { throw refusal } }
    /// The history: what undo and redo go back to, as the daemon's rules say.
    var entries: [HistoryEntry] = []
    var undone: [HistoryEntry] = []
    func undo() throws(MethodError) -> SelectorReply {
        if let refusal { throw refusal }
        guard let last = entries.last(where: { $0.kind != .undo }) else {
            throw MethodError(.nothingToUndo, "There is nothing to undo.")
        }
        undone.append(last)
        return try setIndex(current.sizes.firstIndex(of: last.from) ?? 0)
    }
    func redo() throws(MethodError) -> SelectorReply {
        guard let last = undone.popLast() else {
            throw MethodError(.nothingToRedo, "There is nothing to redo.")
        }
        return try setIndex(current.sizes.firstIndex(of: last.to) ?? 0)
    }
    func history(limit: Int) throws(MethodError) -> [HistoryEntry] { Array(entries.suffix(limit)) }
    func valueText() throws(MethodError) -> String { current.valueText }
    func attach(
        to loop: EventLoop, onChange: @escaping (SelectorChange) -> Void, onLost: @escaping () -> Void
    ) {}
    func receivePending() {}
}

func runWithFake(_ fake: FakeClient, _ arguments: [String]) -> (status: Int32, out: String, err: String)
{
    let captured = Captured()
    let console = Console(out: { captured.out += $0 }, err: { captured.err += $0 })
    let status = Tool.main(
        arguments,
        context: CommandContext(
            console: console, environment: [:],
            makeClient: { _, _ throws(MethodError) in fake }))
    return (status, captured.out, captured.err)
}

@Suite("snapsizectl offline: fake client, rendering, keys")
struct OfflineTests {
    @Test("inc at the top with a fake client: size on stdout, the limit on stderr, exit 0")
    func incAtLimit() {
        let fake = FakeClient()
        #expect(runWithFake(fake, ["inc", "2"]).out == "100\n")
        let result = runWithFake(fake, ["inc"])
        #expect(
            result.status == 0 && result.out == "100\n"
                && result.err == "already at the largest size, 100 points\n")
    }

    @Test(
        "JSON escapes what a terminal would obey (C0, C1, bidi overrides, format characters), so the value stays exact"
    )
    func jsonEscapes() {
        #expect(
            JSON.string("a\u{1B}b\u{9B}c\u{202E}d\u{2066}e\u{E0001}f é 点").text
                == #""a\u001bb\u009bc\u202ed\u2066e\udb40\udc01f é 点""#)
    }

    @Test("a refusal whose message carries controls is printed with them replaced")
    func refusalPrintable() throws {
        let fake = FakeClient()
        fake.refusal = MethodError(.invalidArgs, "held by evil\u{1B}[2J\u{9B}31m\u{202E}x")
        let result = runWithFake(fake, ["inc"])
        #expect(
            result.status == 1
                && result.err
                    == "snapsizectl: org.freedesktop.DBus.Error.InvalidArgs: held by evil?[2J?31m?x\n",
            "\(result.err.debugDescription)")
    }

    @Test(
        "error names map to the documented exit statuses",
        arguments: [
            (ErrorName.previewActive.rawValue, Int32(1)), ("org.freedesktop.DBus.Error.InvalidArgs", 1),
            ("org.freedesktop.DBus.Error.ServiceUnknown", 69),
            ("org.freedesktop.DBus.Error.NameHasNoOwner", 69),
            ("org.freedesktop.DBus.Error.NoReply", 69),
            ("org.freedesktop.DBus.Error.Spawn.ChildExited", 69)
        ])
    func exitStatuses(name: String, status: Int32) throws {
        let fake = FakeClient()
        fake.refusal = MethodError(try #require(ErrorName(rawValue: name)), "because")
        let result = runWithFake(fake, ["focus"])
        #expect(result.status == status)
        #expect(result.err.contains("\(name): because"), "\(result.err)")
        #expect(result.out == "")
    }

    @Test("show: ASCII and Unicode pictures, the committed size marked only when a preview differs")
    func show() {
        var state = FakeClient().current
        #expect(ShowCommand.render(state, style: .ascii) == "20 - 40 - [60] - 80 - 100\n")
        #expect(ShowCommand.render(state, style: .unicode) == "20 ─ 40 ─ [60] ─ 80 ─ 100\n")
        state.previewing = true
        #expect(
            ShowCommand.render(state, style: .ascii) == "20 - 40 - [60] - 80 - 100\n",
            "a preview at the committed size")
        state.shownIndex = 0
        state.shownSize = 20
        state.valueText = "20 points"
        #expect(
            ShowCommand.render(state, style: .ascii)
                == "[20] - 40 - (60) - 80 - 100\npreview 20 points, committed 60 points\n")
    }

    @Test("history --json writes any sequence number the bus can carry (a u64) as it is")
    func largeSequence() {
        let entry = HistoryEntry(
            sequence: UInt64.max, time: 1, from: 20, to: 40, kind: .step, by: .unknown)
        #expect(
            HistoryCommand.json(entry).hasPrefix("{\"seq\":18446744073709551615,"),
            "\(HistoryCommand.json(entry))")
    }

    @Test("watch phases from what PropertiesChanged carried")
    func phases() {
        #expect(
            WatchCommand.phase(of: SelectorChange(shownIndex: 3, shownSize: 80, previewing: true))
                == .preview)
        #expect(WatchCommand.phase(of: SelectorChange(shownIndex: 4, shownSize: 100)) == .preview)
        #expect(
            WatchCommand.phase(
                of: SelectorChange(selectedIndex: 4, selectedSize: 100, previewing: false)) == .commit)
        #expect(
            WatchCommand.phase(of: SelectorChange(selectedIndex: 1, selectedSize: 40, shownIndex: 1))
                == .commit)
        #expect(WatchCommand.phase(of: SelectorChange(shownIndex: 2, previewing: false)) == .cancel)
        // A reload's new unit or layout moves nothing: no line (it used to print a "preview").
        #expect(WatchCommand.phase(of: SelectorChange(valueText: "60 dots")) == nil)
        #expect(WatchCommand.phase(of: SelectorChange()) == nil)
    }

    @Test(
        "did you mean: a mistyped command or option gets the one close match, exit 64",
        arguments: [
            (["stauts"], "snapsizectl: unknown command 'stauts'. Did you mean 'status'?"),
            (["sett", "40"], "Did you mean 'set'?"),
            (["adjsut"], "Did you mean 'adjust'?"),
            (["docter"], "Did you mean 'doctor'?"),
            (["frobnicate"], "unknown command 'frobnicate'. Run 'snapsizectl --help' for the list."),
            (["get", "--jsn"], "unknown option '--jsn'; did you mean '--json'?"),
            (["set", "--indx", "2"], "did you mean '--index'?")
        ])
    func didYouMean(arguments: [String], message: String) {
        let result = runWithFake(FakeClient(), arguments)
        #expect(result.status == 64)
        #expect(result.out == "")
        #expect(result.err.contains(message), "\(arguments): \(result.err)")
    }

    @Test("suggestions: one close candidate only; swaps count one edit")
    func suggestions() {
        #expect(editDistance("stauts", "status") == 1)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(suggestion(for: "xyz", among: ["get", "set"]) == nil, "too far")
        #expect(suggestion(for: "gat", among: ["get", "got"]) == nil, "two equally close: no guess")
    }

    @Test("key decoding: arrows in both modes, Home/End variants, split sequences, a lone Esc waits")
    func keys() {
        var decoder = KeyDecoder()
        #expect(
            decoder.feed(
                Array(
                    "\u{1B}[C\u{1B}[D\u{1B}OA\u{1B}[B\u{1B}[H\u{1B}[4~\u{1B}[1~\u{1B}OF\rq\u{03}x".utf8))
                == [
                    .right, .left, .up, .down, .home, .end, .home, .end, .enter, .quit, .interrupt,
                    .other
                ])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.hasPendingEscape)
        #expect(decoder.feed(Array("[".utf8)) == [])
        #expect(decoder.feed(Array("C".utf8)) == [.right])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flushPendingEscape() == .escape)
        #expect(decoder.feed(Array("\u{1B}q".utf8)) == [.escape, .quit])
    }
}
