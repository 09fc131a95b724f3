import Testing
import DBusKit
@testable import SnapService
import SnapSettings

/// The speaker's choices with a fake screen-reader channel and a manual clock: which way a
/// change is spoken, when nothing extra is sent, the throttle's two edges, limits, what is kept
/// before the accessible side is ready, and `--announce never`.
@Suite("Speaker: every change heard once")
struct SpeakerTests {
    final class Channel: SpeechChannel {
        var isFocused = false
        var focusedValueSpeaks = false
        var hasAnnouncementListener = false
        var said: [String] = []
        func announce(_ text: String) { said.append("announcement: " + text) }
        func notify(_ text: String) { said.append("notification: " + text) }
    }

    let texts = ["20 points", "40 points", "60 points", "80 points", "100 points"]

    /// The daemon's event loop on a manual clock: timers fire only when the test advances time.
    func make(_ mode: DaemonSettings.Announce = .changes, window: Double = SpeechTiming.window) -> (
        Speaker, Channel, EventLoop
    ) {
        let loop = EventLoop(clock: .manual()), channel = Channel()
        let speaker = Speaker(mode: mode, valueTexts: texts, loop: loop, window: window)
        speaker.channel = channel
        return (speaker, channel, loop)
    }

    @Test(
        "one change after a quiet moment is spoken at once (t = 0), as a notification without a listener"
    )
    func leadingEdge() {
        let (speaker, channel, _) = make()
        speaker.committed(index: 3)
        #expect(channel.said == ["notification: 80 points"])
    }

    @Test(
        "an announcement listener (Orca 45+): announcements while unfocused, nothing extra while focused"
    )
    func announcementListener() {
        let (speaker, channel, clock) = make()
        channel.hasAnnouncementListener = true
        speaker.committed(index: 3)
        clock.advanceTime(by: 1)
        channel.isFocused = true
        speaker.committed(index: 4)  // Orca 48 keeps the slider (in its active frame): the value event speaks
        clock.advanceTime(by: 1)
        channel.isFocused = false
        speaker.committed(index: 2)
        #expect(channel.said == ["announcement: 80 points", "announcement: 60 points"])
    }

    @Test("focused without an announcement listener (Orca 43 speaks the value event): nothing extra")
    func focusedOrca43() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 1)  // spoken at once while unfocused...
        clock.advanceTime(by: 0.05)
        speaker.committed(index: 0)  // ...this one held for the window's end...
        channel.isFocused = true
        speaker.committed(index: 2)  // ...superseded by a change the value event speaks
        clock.advanceTime(by: 1)
        #expect(channel.said == ["notification: 40 points"])
    }

    @Test(
        "the window is at least Orca's minimum gap: a burst's trailing utterance comes a window after the one before it"
    )
    func windowAtLeastMinimumGap() {
        #expect(SpeechTiming.window >= SpeechTiming.minimumGap)
        #expect(SpeechTiming.quiet > SpeechTiming.window)
        let speaker = Speaker(mode: .changes, valueTexts: texts, loop: EventLoop(clock: .manual()))
        #expect(
            speaker.window == SpeechTiming.window,
            "a speaker made as the daemon makes it takes the one constant")
    }

    @Test(
        "five changes within 50 ms: two texts, the first at once, the last the final, at the window's end (whatever the window)",
        arguments: [SpeechTiming.window, 0.5])
    func burst(window: Double) {
        let (speaker, channel, clock) = make(window: window)
        for index in [2, 1, 0, 1, 4] {
            speaker.committed(index: index)
            clock.advanceTime(by: 0.01)
        }
        #expect(channel.said == ["notification: 60 points"])
        clock.advanceTime(by: window - 0.06)
        #expect(channel.said == ["notification: 60 points"], "not before the window ends")
        clock.advanceTime(by: 0.02)
        #expect(channel.said == ["notification: 60 points", "notification: 100 points"])
        clock.advanceTime(by: 2)
        #expect(channel.said.count == 2, "never a queue")
    }

    @Test(
        "a held key, twelve changes 40 ms apart: the first at once, at most one per window, the final once"
    )
    func heldKey() {
        let (speaker, channel, clock) = make()
        channel.hasAnnouncementListener = true
        var times: [Double] = []
        for index in [0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3] {
            speaker.committed(index: index)
            if channel.said.count > times.count { times.append(clock.now) }
            clock.advanceTime(by: 0.04)
            if channel.said.count > times.count { times.append(clock.now) }
        }
        clock.advanceTime(by: 1)
        if channel.said.count > times.count { times.append(clock.now) }
        #expect(
            channel.said.first == "announcement: 20 points" && times.first == 0,
            "the first at once: \(channel.said)")
        #expect(channel.said.last == "announcement: 80 points", "the final value: \(channel.said)")
        #expect(
            channel.said.count <= 1 + Int((0.44 / SpeechTiming.window).rounded(.up)) + 1,
            "\(channel.said)")
        #expect(
            zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= SpeechTiming.window - 0.041 },
            "\(times)")
    }

    @Test("a key held at the largest size: the limit note once, at once after the last value")
    func heldAtLimit() {
        let (speaker, channel, clock) = make()
        channel.hasAnnouncementListener = true
        speaker.committed(index: 3)
        clock.advanceTime(by: 0.04)
        speaker.committed(index: 4)
        for _ in 0..<20 {
            clock.advanceTime(by: 0.04)
            speaker.reachedLimit(largest: true, index: 4, moved: false)
        }
        clock.advanceTime(by: 1)
        #expect(channel.said == ["announcement: 80 points", "announcement: 100 points, largest size"])
    }

    @Test("a final value equal to the last spoken is not repeated")
    func finalEqualToLast() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 3)
        speaker.committed(index: 4)
        speaker.committed(index: 3)
        clock.advanceTime(by: 1)
        #expect(channel.said == ["notification: 80 points"])
    }

    @Test("limits: at once, spaced from the text before (Orca 48 drops an announcement within 0.1 s)")
    func limits() {
        let (speaker, channel, clock) = make()
        speaker.reachedLimit(largest: true, index: 4, moved: false)
        #expect(channel.said == ["notification: 100 points, largest size"], "at once")
        clock.advanceTime(by: 1)
        speaker.committed(index: 4)  // 80 -> 100 by a StepBy(+3) that stopped there
        speaker.reachedLimit(largest: true, index: 4, moved: true)
        #expect(channel.said.count == 2, "not within the minimum gap")
        clock.advanceTime(by: SpeechTiming.minimumGap)
        #expect(
            channel.said.last == "notification: 100 points, largest size", "as soon as the gap allows")
        clock.advanceTime(by: 1)
        channel.isFocused = true
        speaker.reachedLimit(largest: false, index: 0, moved: false)
        clock.advanceTime(by: 1)
        speaker.committed(index: 4)
        speaker.reachedLimit(largest: true, index: 4, moved: true)  // StepBy(+3) from 40, focused on Orca 43
        clock.advanceTime(by: 1)
        #expect(
            channel.said == [
                "notification: 100 points, largest size", "notification: 100 points",
                "notification: 100 points, largest size", "notification: 20 points, smallest size",
                "notification: largest size"
            ])
    }

    @Test(
        "the way is chosen when the text goes out: a screen reader that starts or stops between the edges is honoured"
    )
    func chosenAtSend() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 3)
        speaker.committed(index: 4)
        channel.hasAnnouncementListener = true
        clock.advanceTime(by: 1)
        speaker.committed(index: 2)
        speaker.committed(index: 1)
        channel.hasAnnouncementListener = false
        clock.advanceTime(by: 1)
        #expect(
            channel.said == [
                "notification: 80 points", "announcement: 100 points",
                "announcement: 60 points", "notification: 40 points"
            ])
    }

    @Test(
        "before the accessible side is ready: the latest text is kept and said once it is, within the bound"
    )
    func keptUntilReady() {
        let loop = EventLoop(clock: .manual()), channel = Channel()
        let speaker = Speaker(mode: .changes, valueTexts: texts, loop: loop)
        var dropped: [String] = []
        speaker.onDropped = { dropped.append($0) }
        speaker.committed(index: 3)
        speaker.committed(index: 4)
        loop.advanceTime(by: Speaker.readyBound - 0.1)
        speaker.channel = channel
        #expect(channel.said == ["notification: 100 points"], "only the latest, at once")
        loop.advanceTime(by: 1)
        #expect(channel.said.count == 1 && dropped.isEmpty)

        // Lost again (the registry restarted): a held text is kept for the next channel...
        speaker.committed(index: 2)
        speaker.committed(index: 1)
        speaker.lost()
        speaker.channel = channel
        #expect(channel.said.last == "notification: 40 points")
        // ...and past the bound it is dropped, with one line.
        speaker.lost()
        loop.advanceTime(by: 1)
        speaker.committed(index: 0)
        loop.advanceTime(by: Speaker.readyBound + 0.1)
        speaker.channel = channel
        loop.advanceTime(by: 1)
        #expect(channel.said.count == 3, "\(channel.said)")
        #expect(dropped.count == 1 && dropped[0].contains("20 points"), "\(dropped)")
    }

    @Test(
        "a Focus asked before the join (kept as AccessibilityService keeps it): carried out after it, dropped past the bound"
    )
    func focusUntilReady() {
        let loop = EventLoop(clock: .manual())
        let focus = UntilReady<Void>(loop: loop, bound: Speaker.readyBound) { _ in
            "the slider did not take focus"
        }
        var dropped: [String] = []
        focus.onDropped = { dropped.append($0) }
        focus.keep(())
        loop.advanceTime(by: Speaker.readyBound - 0.1)
        #expect(focus.take() != nil, "joined within the bound: carried out")
        #expect(focus.take() == nil, "once")
        focus.keep(())
        focus.keep(())  // only the latest, the bound from it
        loop.advanceTime(by: Speaker.readyBound + 0.1)
        #expect(focus.take() == nil, "past the bound: dropped")
        #expect(
            dropped == [
                "the accessibility bus was not ready within 2.0 s; the slider did not take focus"
            ])
    }

    @Test("a Focus carried out after the join presents the value: the kept text is not said again")
    func focusPresentedDropsKept() {
        let loop = EventLoop(clock: .manual()), channel = Channel()
        let speaker = Speaker(mode: .changes, valueTexts: texts, loop: loop)
        speaker.committed(index: 3)
        speaker.focusPresented()
        speaker.channel = channel
        loop.advanceTime(by: 3)
        #expect(channel.said.isEmpty)
    }

    @Test("--announce never, announcement, notification")
    func modes() {
        let (never, silent, neverClock) = make(.never)
        never.committed(index: 3)
        never.reachedLimit(largest: true, index: 4, moved: false)
        neverClock.advanceTime(by: 1)
        #expect(silent.said.isEmpty)

        let (forced, channel, clock) = make(.announcement)
        forced.committed(index: 3)
        clock.advanceTime(by: 1)
        let (notifying, other, otherClock) = make(.notification)
        other.hasAnnouncementListener = true
        notifying.committed(index: 3)
        otherClock.advanceTime(by: 1)
        #expect(channel.said == ["announcement: 80 points"] && other.said == ["notification: 80 points"])
    }
}
