import Testing
import DBusKit
@testable import SnapService

/// The coalescing of unfocused announcements (the accessible side), on a manual clock.
@Suite("Announcements in process")
struct AnnouncementTests {
    @Test("a burst of changes yields one announcement per interval, each with the latest value")
    func coalesced() {
        let loop = EventLoop(clock: .manual())
        var value = 0
        var spoken: [(at: Double, value: Int)] = []
        let timer = AnnouncementTimer(loop: loop, interval: 0.25) { spoken.append((loop.now, value)) }
        // 40 changes 10 ms apart: the first arms the timer at 0, one made right after it fired re-arms it.
        for step in 1...40 {
            value = step
            timer.changed()
            loop.advanceTime(by: 0.01)
        }
        loop.advanceTime(by: 5)
        #expect(spoken.count == 2, "\(spoken)")
        #expect(abs((spoken.first?.at ?? 0) - 0.25) < 1e-9, "\(spoken)")
        #expect(spoken.first?.value == 25, "the value when the timer fired: \(spoken)")
        #expect(spoken.last?.value == 40, "the last announcement carries the final value: \(spoken)")
    }

    @Test("a single change is announced once, after the interval")
    func single() {
        let loop = EventLoop(clock: .manual())
        var spoken: [Double] = []
        let timer = AnnouncementTimer(loop: loop, interval: 0.25) { spoken.append(loop.now) }
        timer.changed()
        loop.advanceTime(by: 0.249)
        #expect(spoken.isEmpty)
        loop.advanceTime(by: 10)
        #expect(spoken == [0.25])
    }

    @Test("a cancelled announcement never goes out")
    func cancelled() {
        let loop = EventLoop(clock: .manual())
        var spoken = 0
        let timer = AnnouncementTimer(loop: loop, interval: 0.25) { spoken += 1 }
        timer.changed()
        timer.cancel()
        loop.advanceTime(by: 1)
        #expect(spoken == 0)
        timer.changed()
        loop.advanceTime(by: 1)
        #expect(spoken == 1, "a change after the cancel arms a new timer")
    }
}
