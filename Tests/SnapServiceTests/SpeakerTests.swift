import Testing
@testable import SnapService
import SnapSettings

/// The speaker's choices with a fake screen-reader channel and a hand-driven clock: which way a
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

    /// Timers that fire only when the test says time has passed.
    final class Clock {
        var now = 0.0
        var timers: [(id: Int, due: Double, action: () -> Void)] = []
        var nextID = 0
        func schedule(_ seconds: Double, _ action: @escaping () -> Void) -> () -> Void {
            nextID += 1
            let id = nextID
            timers.append((id, now + seconds, action))
            return { [unowned self] in self.timers.removeAll { $0.id == id } }
        }
        func advance(_ seconds: Double) {
            now += seconds
            while let index = timers.indices.filter({ timers[$0].due <= now }).min(by: { timers[$0].due < timers[$1].due }) {
                timers.remove(at: index).action()
            }
        }
    }

    let texts = ["20 points", "40 points", "60 points", "80 points", "100 points"]

    func make(_ mode: DaemonSettings.Announce = .changes) -> (Speaker, Channel, Clock) {
        let clock = Clock(), channel = Channel()
        let speaker = Speaker(mode: mode, valueTexts: texts) { clock.schedule($0, $1) }
        speaker.channel = channel
        return (speaker, channel, clock)
    }

    @Test("unfocused, no announcement listener (Orca 43): the notification, 0.25 s after the change")
    func notificationUnfocused() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 3)
        clock.advance(0.2)
        #expect(channel.said.isEmpty)
        clock.advance(0.1)
        #expect(channel.said == ["notification: 80 points"])
    }

    @Test("an announcement listener (Orca 45+): announcements, focused or not")
    func announcementListener() {
        let (speaker, channel, clock) = make()
        channel.hasAnnouncementListener = true
        speaker.committed(index: 3)
        clock.advance(1)
        channel.isFocused = true
        speaker.committed(index: 4)
        clock.advance(1)
        #expect(channel.said == ["announcement: 80 points", "announcement: 100 points"])
    }

    @Test("focused without an announcement listener (Orca 43 speaks the value event): nothing extra")
    func focusedOrca43() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 1)  // pending while unfocused...
        channel.isFocused = true
        speaker.committed(index: 2)  // ...superseded by a change the value event speaks
        clock.advance(1)
        #expect(channel.said.isEmpty)
    }

    @Test("a burst is coalesced: only the final text, 0.25 s after the LAST change")
    func burst() {
        let (speaker, channel, clock) = make()
        for index in [2, 1, 2, 1, 2] {
            speaker.committed(index: index)
            clock.advance(0.1)
        }
        #expect(channel.said.isEmpty, "still changing")
        clock.advance(0.2)
        #expect(channel.said == ["notification: 60 points"])
    }

    @Test("limits: value and end once, focused or not; only the end after a step the value event spoke")
    func limits() {
        let (speaker, channel, clock) = make()
        speaker.reachedLimit(largest: true, index: 4, moved: false)
        clock.advance(1)
        channel.isFocused = true
        speaker.reachedLimit(largest: false, index: 0, moved: false)
        clock.advance(1)
        speaker.committed(index: 4)
        speaker.reachedLimit(largest: true, index: 4, moved: true)  // StepBy(+3) from 40, focused on Orca 43
        clock.advance(1)
        #expect(channel.said == ["notification: 100 points, largest size", "notification: 20 points, smallest size",
                                 "notification: largest size"])
    }

    @Test("the way is chosen when the text goes out: a screen reader that started meanwhile is honoured")
    func chosenAtSend() {
        let (speaker, channel, clock) = make()
        speaker.committed(index: 3)
        channel.hasAnnouncementListener = true
        clock.advance(1)
        #expect(channel.said == ["announcement: 80 points"])
    }

    @Test("--announce never, announcement, notification")
    func modes() {
        let (never, silent, neverClock) = make(.never)
        never.committed(index: 3)
        never.reachedLimit(largest: true, index: 4, moved: false)
        neverClock.advance(1)
        #expect(silent.said.isEmpty)

        let (forced, channel, clock) = make(.announcement)
        forced.committed(index: 3)
        clock.advance(1)
        let (notifying, other, otherClock) = make(.notification)
        other.hasAnnouncementListener = true
        notifying.committed(index: 3)
        otherClock.advance(1)
        #expect(channel.said == ["announcement: 80 points"] && other.said == ["notification: 80 points"])
    }
}
