import Testing
import DBusKit
@testable import SnapService
import SnapSettings

/// The speaker's choices with a fake screen-reader channel and a manual clock: which way a
/// change is spoken, when nothing extra is sent, coalescing, limits and `--announce never`.
@Suite("Speaker: every change heard once")
struct SpeakerTests {
    final class Channel: SpeechChannel {
        var isFocused = false
        var hasAnnouncementListener = false
        var said: [String] = []
        func announce(_ text: String) { said.append("announcement: " + text) }
        func notify(_ text: String) { said.append("notification: " + text) }
    }

    let texts = ["20 points", "40 points", "60 points", "80 points", "100 points"]

    /// The daemon's event loop on a manual clock: timers fire only when the test advances time.
    func make(_ mode: DaemonSettings.Announce = .changes) -> (Speaker, Channel, EventLoop) {
        let loop = EventLoop(clock: .manual()), channel = Channel()
        let speaker = Speaker(mode: mode, valueTexts: texts, loop: loop)
        speaker.channel = channel
        return (speaker, channel, loop)
    }

    @Test("unfocused, no announcement listener (Orca 43): the notification, 0.25 s after the change")
    func notificationUnfocused() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 3)
        clock.advanceTime(by: 0.2)
        #expect(channel.said.isEmpty)
        clock.advanceTime(by: 0.1)
        #expect(channel.said == ["notification: 80 points"])
    }

    @Test("an announcement listener (Orca 45+): announcements, focused or not")
    func announcementListener() {
        let (speaker, channel, clock) = make()
        channel.hasAnnouncementListener = true
        speaker.committed(index: 3)
        clock.advanceTime(by: 1)
        channel.isFocused = true
        speaker.committed(index: 4)
        clock.advanceTime(by: 1)
        #expect(channel.said == ["announcement: 80 points", "announcement: 100 points"])
    }

    @Test("focused without an announcement listener (Orca 43 speaks the value event): nothing extra")
    func focusedOrca43() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 1)  // pending while unfocused...
        channel.isFocused = true
        speaker.committed(index: 2)  // ...superseded by a change the value event speaks
        clock.advanceTime(by: 1)
        #expect(channel.said.isEmpty)
    }

    @Test("a burst is coalesced: only the final text, 0.25 s after the LAST change")
    func burst() {
        let (speaker, channel, clock) = make()
        for index in [2, 1, 2, 1, 2] {
            speaker.committed(index: index)
            clock.advanceTime(by: 0.1)
        }
        #expect(channel.said.isEmpty, "still changing")
        clock.advanceTime(by: 0.2)
        #expect(channel.said == ["notification: 60 points"])
    }

    @Test("limits: value and end once, focused or not; only the end after a step the value event spoke")
    func limits() {
        let (speaker, channel, clock) = make()
        speaker.reachedLimit(largest: true, index: 4, moved: false)
        clock.advanceTime(by: 1)
        channel.isFocused = true
        speaker.reachedLimit(largest: false, index: 0, moved: false)
        clock.advanceTime(by: 1)
        speaker.committed(index: 4)
        speaker.reachedLimit(largest: true, index: 4, moved: true)  // StepBy(+3) from 40, focused on Orca 43
        clock.advanceTime(by: 1)
        #expect(channel.said == ["notification: 100 points, largest size", "notification: 20 points, smallest size",
                                 "notification: largest size"])
    }

    @Test("the way is chosen when the text goes out: a screen reader that started meanwhile is honoured")
    func chosenAtSend() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 3)
        channel.hasAnnouncementListener = true
        clock.advanceTime(by: 1)
        #expect(channel.said == ["announcement: 80 points"])
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
