import Testing
@testable import SnapService

/// Repeated refusals do not flood the journal: one line per interval, on a manual clock.
@Suite("Rate-limited log lines")
struct LimitedLogTests {
    @Test("200 lines within the interval write one; the next one after it says how many were held back")
    func limited() {
        var clock = 0.0
        var written: [String] = []
        let limited = LimitedLog(interval: 10, now: { clock }, write: { written.append($0) })
        for number in 0..<200 {
            clock = Double(number) * 0.01
            limited.log("refused \(number)")
        }
        #expect(written == ["refused 0"])
        clock = 10.5
        limited.log("refused again")
        #expect(
            written == ["refused 0", "refused again (199 more like it not shown since the last one)"])
        clock = 30
        limited.log("later")
        #expect(written.last == "later")
    }
}
