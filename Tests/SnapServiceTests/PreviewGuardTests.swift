import Foundation
import Testing
import DBusKit
import SnapCore
@testable import SnapService
import SnapSettings
import TestSupport

/// PreviewGuard in process on a private bus, its timer driven by a manual clock: the silence
/// timeout is exact, whatever the machine's load.
@Suite("PreviewGuard in process")
struct PreviewGuardTests {
    /// The model and its adapters wired by `Daemon.wire`, on a loop whose time only the test moves;
    /// the test listens after them.
    final class Setup: ModelAdapter {
        let bus: PrivateSessionBus
        let loop = EventLoop(clock: .manual())
        let service: Connection
        /// A client that stays on the bus, so its previews have a live owner.
        let client: Connection
        let model: SelectionModel
        let adapters: Daemon.Adapters
        /// When (on the manual clock) each preview ended.
        var endedAt: [Double] = []

        init(timeout: Double) throws {
            bus = try PrivateSessionBus()
            service = try Connection(address: bus.address)
            client = try Connection(address: bus.address)
            loop.add(service)
            model = SelectionModel(selection: try Selection(committed: 2), store: nil)
            var settings = DaemonSettings()
            settings.accessibility = false
            settings.previewTimeout = timeout
            adapters = Daemon.wire(
                model: model, session: service, loop: loop, settings: settings, environment: [:])
            model.adapters.append(self)
        }

        func modelChanged(_ change: ModelChange) {
            if change.facts.contains(.previewing), !model.isPreviewing { endedAt.append(loop.now) }
        }

        var owner: PreviewOwner { PreviewOwner(client.uniqueName) }
    }

    @Test("a silent owner's preview ends exactly at the timeout")
    func timeout() throws {
        let setup = try Setup(timeout: 30)
        try setup.model.preview(x: 12, by: setup.owner)
        setup.loop.advanceTime(by: 29.999)
        #expect(setup.model.isPreviewing, "ended before the timeout")
        setup.loop.advanceTime(by: 1)
        #expect(!setup.model.isPreviewing)
        #expect(setup.endedAt == [30])
        #expect(setup.model.committedSize == 60 && setup.model.shownSize == 60, "ended as if cancelled")
    }

    @Test("every Preview call restarts the silence timer, even one that shows the same size")
    func movesRestartTheTimer() throws {
        let setup = try Setup(timeout: 0.4)
        try setup.model.preview(x: 12, by: setup.owner)
        for _ in 0..<4 {
            setup.loop.advanceTime(by: 0.3)
            try setup.model.preview(x: 13, by: setup.owner)  // the same index as before
        }
        #expect(setup.model.isPreviewing, "a moving owner's preview ended")
        setup.loop.advanceTime(by: 10)
        #expect(setup.endedAt.count == 1)
        #expect(abs((setup.endedAt.first ?? 0) - 1.6) < 1e-9, "ended at \(setup.endedAt)")
    }

    @Test("a preview that ends otherwise leaves no timer behind")
    func commitStopsTheTimer() throws {
        let setup = try Setup(timeout: 0.4)
        try setup.model.preview(x: 12, by: setup.owner)
        try setup.model.perform(as: ChangeCause(.commit)) { selection throws(SnapError) in
            try selection.commit(x: 12, by: setup.owner)
        }
        // A second preview by the same owner must get its own full timeout.
        setup.loop.advanceTime(by: 0.3)
        try setup.model.preview(x: 324, by: setup.owner)
        setup.loop.advanceTime(by: 0.399)
        #expect(setup.model.isPreviewing, "the first preview's timer ended the second one")
        setup.loop.advanceTime(by: 0.002)
        #expect(!setup.model.isPreviewing)
        #expect(setup.model.committedSize == 20)
    }

    @Test("the owner leaving the bus ends its preview")
    func ownerLeaves() throws {
        let setup = try Setup(timeout: 3600)
        try setup.model.preview(x: 12, by: setup.owner)
        // A blocking round trip after the guard's own NameHasOwner: its answer (true) is queued
        // by then and handled now, so only the NameOwnerChanged watch can end the preview below.
        _ = try setup.service.call(
            destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
            interface: "org.freedesktop.DBus", member: "GetId")
        setup.loop.advanceTime()
        #expect(setup.model.isPreviewing)
        setup.client.close()
        // The bus's NameOwnerChanged is real traffic: wait for it (no time passes on the loop's clock).
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(); return !setup.model.isPreviewing
            })
        #expect(setup.endedAt == [0])
    }

    @Test("an owner already gone when its preview opened (before the watch was in place): ended")
    func ownerAlreadyGone() throws {
        let setup = try Setup(timeout: 3600)
        let gone = try Connection(address: setup.bus.address)
        let owner = PreviewOwner(gone.uniqueName)
        gone.close()
        // Wait until the bus itself says the name is gone, so no NameOwnerChanged can follow.
        #expect(
            waitUntil(timeout: 10) {
                let reply = try? setup.client.call(
                    destination: "org.freedesktop.DBus",
                    path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
                    interface: "org.freedesktop.DBus", member: "NameHasOwner",
                    arguments: [.string(owner.id)])
                return reply?.first?.asBool == false
            })
        try setup.model.preview(x: 12, by: owner)
        #expect(
            waitUntil(timeout: 10) {
                setup.loop.advanceTime(); return !setup.model.isPreviewing
            })
        #expect(setup.endedAt == [0])
    }
}
