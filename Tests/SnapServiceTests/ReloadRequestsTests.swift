import Testing
import DBusKit
@testable import SnapService

/// `ReloadRequests` on a manual clock: SIGHUPs within a spacing of a reload become one reload at
/// its end, saying how many it merged; a lone SIGHUP reloads at once.
@Suite("ReloadRequests: SIGHUPs coalesced")
struct ReloadRequestsTests {
    @Test("one at once, the rest merged into one per spacing, none lost, none left due")
    func coalesced() {
        let loop = EventLoop(clock: .manual())
        var reloads: [Int] = []
        let requests = ReloadRequests(loop: loop) { reloads.append($0) }
        requests.requested()
        #expect(reloads == [0], "the first reloads at once")
        for _ in 0..<500 { requests.requested() }
        loop.advanceTime(by: ReloadRequests.spacing / 2)
        #expect(reloads == [0])
        loop.advanceTime(by: ReloadRequests.spacing / 2)
        #expect(reloads == [0, 499], "one reload for the 500 that came meanwhile")
        requests.requested()
        loop.advanceTime(by: ReloadRequests.spacing)
        #expect(reloads == [0, 499, 0], "a single waiting one merges nothing")
        loop.advanceTime(by: ReloadRequests.spacing)
        requests.requested()
        #expect(reloads == [0, 499, 0, 0], "after a quiet spacing, at once again")
        loop.advanceTime(by: 10 * ReloadRequests.spacing)
        #expect(reloads == [0, 499, 0, 0], "nothing left due")
    }
}
