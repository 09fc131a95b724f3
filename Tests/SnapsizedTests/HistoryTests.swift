import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import SnapCore
@testable import SnapService
import TestSupport

/// The history, Undo and Redo through the real daemon on a private bus, against a plain model of
/// the rules (a timeline of sizes with a cursor, as an editor's undo is usually drawn).
@Suite("History, Undo and Redo", .serialized)
struct HistoryTests {
    static let sizes = [20, 30, 40, 50, 60, 70, 80, 90, 100]

    private func daemon(
        _ arguments: [String] = [],
        config: String = "sizes = 20,30,40,50,60,70,80,90,100\ninitial = 60\n"
    )
        throws -> (DaemonFixture, ChildProcess)
    {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.writeConfig(config)
        try fixture.start(arguments)
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        return (fixture, daemon)
    }

    private func history(_ client: SelectorClient, limit: UInt32 = 1000) throws -> [HistoryEntry] {
        try HistoryEntry.list(try client.call("GetHistory", [.uint32(limit)]))
    }

    private func committed(_ reply: [DBusValue]) -> Int? {
        reply.count == 2 ? reply[1].asInt32.map(Int.init) : nil
    }

    /// The rules, drawn differently from the daemon's two stacks: the sizes committed, a cursor at
    /// the current one; a change cuts what lies after the cursor, undo and redo move it.
    struct Timeline {
        var states: [Int]
        var cursor = 0
        init(_ size: Int) { states = [size] }
        var size: Int { states[cursor] }
        mutating func change(to size: Int) {
            guard size != self.size else { return }
            states.removeSubrange((cursor + 1)...)
            states.append(size)
            if states.count > 101 { states.removeFirst() }
            cursor = states.count - 1
        }
        mutating func undo() -> Int? { guard cursor > 0 else { return nil }; cursor -= 1; return size }
        mutating func redo() -> Int? {
            guard cursor + 1 < states.count else { return nil }; cursor += 1; return size
        }
    }

    @Test(
        "random steps, sets, undos and redos: every reply, CanUndo/CanRedo and refusal as the plain model says"
    )
    func againstPlainModel() throws {
        let (fixture, daemon) = try daemon()
        let client = try fixture.client()
        var random = SeededRandom.replayable("HistoryTests.againstPlainModel")
        var model = Timeline(60)
        for round in 0..<300 {
            let what = Int.random(in: 0..<10, using: &random)
            switch what {
            case 0..<3:
                let steps = Int.random(in: -3...3, using: &random)
                let reply = try client.call("StepBy", [.int32(Int32(steps))])
                let index = min(
                    max(Self.sizes.firstIndex(of: model.size)! + steps, 0), Self.sizes.count - 1)
                model.change(to: Self.sizes[index])
                #expect(reply[1].asInt32.map(Int.init) == model.size, "round \(round)")
            case 3..<5:
                let size = Self.sizes.randomElement(using: &random)!
                #expect(
                    committed(try client.call("SetSize", [.int32(Int32(size))])) == size,
                    "round \(round)")
                model.change(to: size)
            case 5..<8:
                let expected = model.undo()
                do {
                    let size = committed(try client.call("Undo"))
                    #expect(size == expected && expected != nil, "round \(round)")
                } catch {
                    #expect(expected == nil && error.name == .nothingToUndo, "round \(round): \(error)")
                }
            default:
                let expected = model.redo()
                do {
                    let size = committed(try client.call("Redo"))
                    #expect(size == expected && expected != nil, "round \(round)")
                } catch {
                    #expect(expected == nil && error.name == .nothingToRedo, "round \(round): \(error)")
                }
            }
            #expect(try client.property("CanUndo") == .boolean(model.cursor > 0), "round \(round)")
            #expect(
                try client.property("CanRedo") == .boolean(model.cursor + 1 < model.states.count),
                "round \(round)")
        }
        #expect(savedSize(fixture.stateFile) == model.size, "\(daemon.stderr)")
    }

    @Test("the two new errors, and a new change discards what could be redone")
    func errorsAndDiscardedRedo() throws {
        let (fixture, _) = try daemon()
        let client = try fixture.client()
        let nothing = #expect(throws: MethodError.self) { try client.call("Undo") }
        #expect(
            nothing?.name == .nothingToUndo && nothing?.message == "There is nothing to undo.",
            "\(String(describing: nothing))")
        #expect((#expect(throws: MethodError.self) { try client.call("Redo") })?.name == .nothingToRedo)
        _ = try client.call("SetSize", [.int32(80)])
        _ = try client.call("SetSize", [.int32(90)])
        #expect(committed(try client.call("Undo")) == 80)
        #expect(try client.property("CanRedo") == .boolean(true))
        _ = try client.call("Increment")  // 80 -> 90 again, but as a new change: the redo is gone
        #expect(try client.property("CanRedo") == .boolean(false))
        #expect((#expect(throws: MethodError.self) { try client.call("Redo") })?.name == .nothingToRedo)
        #expect(committed(try client.call("Undo")) == 80)
        #expect(committed(try client.call("Undo")) == 60)
        #expect((#expect(throws: MethodError.self) { try client.call("Undo") })?.name == .nothingToUndo)
    }

    @Test(
        "undo and redo are refused during another client's preview, naming its holder, before anything else; nothing changes"
    )
    func refusedDuringPreview() throws {
        let (fixture, _) = try daemon()
        let client = try fixture.client(), holder = try fixture.client()
        // The preview refuses first, also when there is nothing to undo or redo.
        _ = try holder.call("Preview", [.double(10)])
        for member in ["Undo", "Redo"] {
            let first = #expect(throws: MethodError.self) { try client.call(member) }
            #expect(first?.name == .previewActive, "\(member): \(String(describing: first))")
        }
        _ = try holder.call("Cancel")
        _ = try client.call("SetSize", [.int32(80)])
        _ = try holder.call("Preview", [.double(10)])
        let refused = #expect(throws: MethodError.self) { try client.call("Undo") }
        #expect(refused?.name == .previewActive, "\(String(describing: refused))")
        #expect(refused?.message.contains("pid \(getpid())") == true, "\(String(describing: refused))")
        #expect(try client.property("SelectedSize") == .int32(80))
        _ = try holder.call("Cancel")
        #expect(committed(try client.call("Undo")) == 60)
    }

    @Test(
        "undo across a reload that dropped the size: snapped as SetSize does; the reload is recorded, by no one"
    )
    func undoAcrossReload() throws {
        let (fixture, daemon) = try daemon()
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(80)])
        #expect(try fixture.reload(config: "sizes = 20,40,70,80,100\n"), "\(daemon.stderr)")
        // 60 is gone: the nearest allowed size is what SetSize(60) commits.
        let snapped = committed(try client.call("SetSize", [.int32(60)]))
        _ = try client.call("SetSize", [.int32(80)])
        _ = try client.call("Undo")  // back to the snapped size
        _ = try client.call("Undo")  // back to 80
        #expect(
            committed(try client.call("Undo")) == snapped, "the 80 -> 60 before the reload, 60 snapped")
        #expect(try fixture.reload(config: "sizes = 20,50,100\n"), "\(daemon.stderr)")
        let entries = try history(client)
        let last = try #require(entries.last)
        #expect(
            last.kind == .reload && last.by == .unknown && last.from == snapped && last.to == 50,
            "\(entries)")
        #expect(entries.map(\.kind) == [.set, .set, .set, .undo, .undo, .undo, .reload], "\(entries)")
    }

    @Test(
        "every D-Bus kind is recorded with its caller; LastChangeKind and CanUndo are announced with the change"
    )
    func kindsAndWho() throws {
        let (fixture, _) = try daemon()
        let client = try fixture.client()
        let watcher = try fixture.client()
        watcher.listen()
        _ = try client.call("Increment")
        _ = try client.call("SetIndex", [.uint32(0)])
        _ = try client.call("Commit", [.double(1e9)])
        _ = try client.call("Undo")
        _ = try client.call("Redo")
        let entries = try history(client)
        #expect(entries.map(\.kind) == [.step, .set, .commit, .undo, .redo], "\(entries)")
        #expect(
            entries.map { [$0.from, $0.to] } == [[60, 70], [70, 20], [20, 100], [100, 20], [20, 100]],
            "\(entries)")
        #expect(entries.map(\.sequence) == [1, 2, 3, 4, 5])
        for entry in entries {
            #expect(
                entry.by.uniqueName == client.connection.uniqueName && entry.by.pid == UInt32(getpid()),
                "\(entry)")
            #expect(!entry.by.command.isEmpty, "\(entry)")
            // Within a day of now: the wall clock, in microseconds.
            #expect(abs(entry.time / 1_000_000 - Int64(time(nil))) < 86_400, "\(entry)")
        }
        #expect(try history(client, limit: 2).map(\.kind) == [.undo, .redo])
        #expect(try history(client, limit: 0).isEmpty)
        #expect(watcher.pump { watcher.propertiesChanged.count >= 5 })
        // Without the announcement that only names who, once the bus has told the caller's process.
        let announced = watcher.propertiesChanged.filter { Set($0.keys) != ["ChangedBy"] }.map {
            SelectorChange(changed: $0)
        }
        #expect(
            announced.map(\.lastChangeKind) == ["step", "set", "commit", "undo", "redo"],
            "\(watcher.propertiesChanged)")
        #expect(announced.map(\.canUndo) == [true, nil, nil, nil, nil])
        #expect(announced.map(\.canRedo) == [nil, nil, nil, true, false])
        #expect(try client.property("LastChangeKind") == .string("redo"))
    }

    @Test("1,000 changes leave exactly the newest 100 entries")
    func bounded() throws {
        let (fixture, _) = try daemon()
        let client = try fixture.client()
        for n in 0..<1000 { _ = try client.call(n % 2 == 0 ? "Increment" : "Decrement") }
        let entries = try history(client)
        #expect(entries.count == 100)
        #expect(
            entries.first?.sequence == 901 && entries.last?.sequence == 1000,
            "\(entries.map(\.sequence))")
        // Only 100 can be undone too.
        for _ in 0..<100 { _ = try client.call("Undo") }
        #expect((#expect(throws: MethodError.self) { try client.call("Undo") })?.name == .nothingToUndo)
    }
}
