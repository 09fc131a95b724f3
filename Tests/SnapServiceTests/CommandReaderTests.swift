import Dispatch
import Foundation
import SystemCalls
import Testing
import DBusKit
@testable import SnapService
import TestSupport

/// `CommandReader` with an injected read that blocks, as reading the command line of a process
/// stuck in a page fault (a stalled FUSE mount) does: the loop goes on, the client is known
/// without its command after the timeout, and reads work again once the stuck one ends.
@Suite("CommandReader: command lines read off the loop")
struct CommandReaderTests {
    @Test(
        "a read that blocks holds nobody: answered \"\" after the timeout, later clients at once, reads go on after it"
    )
    func stalledRead() {
        let loop = EventLoop(clock: .manual())
        let stall = DispatchSemaphore(value: 0)
        let reader = CommandReader(loop: loop) { process in
            if process.pid == 1 { stall.wait() }
            return "program \(process.pid)"
        }
        var answers: [UInt32: String] = [:]
        func answer(_ pid: UInt32) { reader.command(of: pid) { answers[pid] = $0 } }
        answer(2)
        #expect(
            waitUntil(timeout: 10) {
                loop.advanceTime(); return answers[2] != nil
            })
        #expect(answers[2] == "program 2", "read on the thread, answered on the loop")
        answer(1)  // the thread blocks on it
        answer(3)  // queued behind it
        loop.advanceTime()
        #expect(answers.count == 1, "the loop goes on; neither is answered yet")
        loop.advanceTime(by: CommandReader.timeout)
        #expect(
            answers[1] == "" && answers[3] == "",
            "both known without a command once the timeout passed: \(answers)")
        #expect(reader.isStuck)
        answer(4)
        #expect(answers[4] == "", "while the thread is stuck, at once, not queued behind it")
        stall.signal()
        #expect(
            waitUntil(timeout: 10) {
                loop.advanceTime(); return !reader.isStuck
            })
        #expect(answers[1] == "" && answers[3] == "", "a late answer is dropped: \(answers)")
        answer(5)
        #expect(
            waitUntil(timeout: 10) {
                loop.advanceTime(); return answers[5] != nil
            })
        #expect(answers[5] == "program 5")
    }

    @Test(
        "a request said to be due: answered; the thread waits awake for it at most awakeAheadSeconds, and at most awakeShare of a CPU"
    )
    func awakeAhead() {
        let loop = EventLoop(clock: .manual())
        let reader = CommandReader(loop: loop, waitsAwake: true) { "program \($0.pid)" }
        var answers: [UInt32: String] = [:]
        reader.expectRequest()
        reader.command(of: 7) { answers[7] = $0 }
        #expect(
            waitUntil(timeout: 10) {
                loop.advanceTime(); return answers[7] != nil
            })
        #expect(answers[7] == "program 7")

        // One expectation and no request: a window that never ended would be awake all along.
        var before = reader.secondsAwakeAhead
        reader.expectRequest()
        Thread.sleep(forTimeInterval: 0.2)
        var awake = reader.secondsAwakeAhead - before
        #expect(awake < 0.1, "awake \(awake) s of 0.2 s for one expectation")

        // Expectations without end (a crowd connecting): a thread that waited awake for each
        // would be awake all along.
        before = reader.secondsAwakeAhead
        let start = monotonicNow()
        while monotonicNow() - start < 0.4 {
            reader.expectRequest()
            usleep(20)
        }
        Thread.sleep(forTimeInterval: 0.05)
        awake = reader.secondsAwakeAhead - before
        #expect(
            awake < 2 * CommandReader.awakeShare * 0.4,
            "awake \(awake) s of 0.4 s of expectations (share \(CommandReader.awakeShare))")
    }

    @Test("with one CPU to run on, the thread never waits awake, and a request said to be due is answered")
    func oneCPU() {
        let loop = EventLoop(clock: .manual())
        let reader = CommandReader(loop: loop, waitsAwake: false) { "program \($0.pid)" }
        var answer: String?
        reader.expectRequest()
        reader.command(of: 7) { answer = $0 }
        #expect(
            waitUntil(timeout: 10) {
                loop.advanceTime(); return answer != nil
            })
        #expect(answer == "program 7")
        reader.expectRequest()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(reader.secondsAwakeAhead == 0)
    }
}
