import CGtk
import DBusKit
import GtkShim
import SizeSelectorContract
import Testing
import TestSupport
@testable import SnapPanel

/// The pointer's calls wait for the daemon's answer (DaemonLink.callAwaitingAnswer, GtkShim's
/// answer-wait.c): the PropertiesChanged the daemon sends before its reply is reported before the call
/// returns, so that GTK's next frame shows it; the reply itself, and the signal once more, come from the
/// main loop afterwards. Against the real snapsized on a private bus; no display.
@Suite("Panel: a pointer call waits for the daemon's answer")
@MainActor
struct AnswerWaitTests {
    /// So long that only a daemon that never answers reaches it: the test is not about time.
    static let generousMicroseconds = 20_000_000

    /// Runs GLib's main context until `done`, at most 10 s.
    static func runLoop(until done: () -> Bool) -> Bool {
        waitUntil(timeout: 10, interval: 0.005) {
            while g_main_context_iteration(nil, 0) != 0 {}
            return done()
        }
    }

    final class Events {
        var states = 0
        var changes: [SelectorChange] = []
        var replies: [Result<[DBusValue], MethodError>] = []
    }

    /// The links made, kept for the process's life as the panel keeps its one: GDBus holds them
    /// unretained in its callbacks, which may still come after a test ends.
    static var links: [DaemonLink] = []

    static func link(_ fixture: DaemonFixture, _ events: Events) throws -> DaemonLink {
        let link = try DaemonLink(address: fixture.bus.address) { event in
            switch event {
            case .state: events.states += 1
            case .change(let change): events.changes.append(change)
            case .vanished, .unreachable: break
            }
        }
        links.append(link)
        link.start()
        #expect(runLoop { events.states > 0 }, "no GetAll answer")
        return link
    }

    @Test("a Preview: its PropertiesChanged is reported before the call returns, the reply after it")
    func preview() throws {
        let fixture = try DaemonFixture()
        let events = Events()
        let link = try Self.link(fixture, events)
        let before = events.changes.count
        // x 324: the last tick, not the one the daemon starts at.
        link.callAwaitingAnswer(.preview, shim_tuple_d(324), within: Self.generousMicroseconds) {
            events.replies.append($0)
        }
        #expect(events.changes.count == before + 1, "\(events.changes)")
        #expect(events.changes.last?.shownIndex == 4 && events.changes.last?.previewing == true)
        #expect(events.replies.isEmpty)
        #expect(Self.runLoop { events.replies.count == 1 && events.changes.count == before + 2 })
        #expect(events.changes.last?.shownIndex == 4)
        link.call(.cancel)
    }

    @Test(
        "a refused Preview (another client's preview is open): nothing reported early, the error after")
    func refused() throws {
        let fixture = try DaemonFixture()
        let other = try Self.link(fixture, Events())
        other.callAwaitingAnswer(.preview, shim_tuple_d(12), within: Self.generousMicroseconds) { _ in }
        let events = Events()
        let link = try Self.link(fixture, events)
        let before = events.changes.count
        link.callAwaitingAnswer(.preview, shim_tuple_d(324), within: Self.generousMicroseconds) {
            events.replies.append($0)
        }
        #expect(events.changes.count == before)
        #expect(Self.runLoop { events.replies.count == 1 })
        guard case .failure = events.replies.first else {
            Issue.record("the second client's Preview was not refused: \(events.replies)")
            return
        }
        other.call(.cancel)
    }
}
