import Testing
import AtSpi
import DBusKit
@testable import SnapService
import SnapSettings

/// The daemon's quiet rule with a fake accessibility bus: when a focused object of another
/// application counts as speaking the commits (its Value shows one of the daemon's value texts),
/// when that ends, and what the speaker then says.
@Suite("FocusedValue: the daemon stays quiet while a panel with a Value holds focus")
struct FocusedValueTests {
    /// Records the questions; the test answers them.
    final class Probe: FocusProbe {
        var questions: [(object: AccessibleRef, reply: (FocusWatch.Shown?) -> Void)] = []
        var followed: [String?] = []
        func shown(by object: AccessibleRef, reply: @escaping (FocusWatch.Shown?) -> Void) {
            questions.append((object, reply))
        }
        func follow(_ sender: String?) { followed.append(sender) }
        /// Answers the oldest open question: the object's Value text (nil: no Value) and its name.
        func answer(_ text: String?, name: String = "Circle size") {
            questions.removeFirst().reply(text.map { .init(name: name, valueText: $0) })
        }
    }

    let texts = ["20 points", "40 points", "60 points", "80 points", "100 points"]
    let track = AccessibleRef(name: ":1.7", path: ObjectPath(rawValue: "/org/gtk/accessible/track")!)
    let button = AccessibleRef(name: ":1.7", path: ObjectPath(rawValue: "/org/gtk/accessible/button")!)
    let otherApp = AccessibleRef(
        name: ":1.9", path: ObjectPath(rawValue: "/org/a11y/atspi/accessible/12")!)

    func make() -> (FocusedValue, Probe) {
        let probe = Probe()
        return (FocusedValue(probe: probe, valueTexts: texts, label: "Circle size"), probe)
    }

    @Test(
        "a focused track whose Value says one of the value texts: quiet, and its application is watched")
    func holds() {
        let (rule, probe) = make()
        rule.focused(track)
        #expect(!rule.speaks, "not before the answer: the daemon speaks while in doubt")
        #expect(probe.questions.map(\.object) == [track])
        probe.answer("60 points")
        #expect(rule.speaks)
        #expect(probe.followed == [":1.7"])
    }

    @Test(
        "no Value (GTK 4.8's track, an entry: an error), another text or name, or no answer in time: the daemon speaks"
    )
    func doesNotHold() {
        let (rule, probe) = make()
        for answer in [nil, "3", "60", "Circle size"] as [String?] {
            rule.focused(track)
            probe.answer(answer)
            #expect(!rule.speaks, "\(answer ?? "no Value")")
        }
        // Another program's slider that says one of the texts, under a name of its own.
        rule.focused(otherApp)
        probe.answer("60 points", name: "Font size")
        #expect(!rule.speaks, "a slider named otherwise")
        #expect(probe.followed.isEmpty)
    }

    @Test(
        "focus moving on ends it: to a button of the same panel, to another application, to the daemon's slider"
    )
    func focusMovesOn() {
        let (rule, probe) = make()
        for next in [0, 1, 2] {
            rule.focused(track)
            probe.answer("80 points")
            #expect(rule.speaks)
            switch next {
            case 0: rule.focused(button)
            case 1: rule.focused(otherApp)
            default: rule.ownFocus()
            }
            #expect(!rule.speaks, "case \(next)")
            if next < 2 { probe.answer(nil) }
        }
        #expect(probe.followed == [":1.7", nil, ":1.7", nil, ":1.7", nil])
    }

    @Test("the track losing focus (its window inactive), or its application leaving the bus, ends it")
    func lostOrLeft() {
        let (rule, probe) = make()
        rule.focused(track)
        probe.answer("80 points")
        rule.unfocused(button)
        #expect(rule.speaks, "another object's focus 0 changes nothing")
        rule.unfocused(track)
        #expect(!rule.speaks)
        rule.focused(track)
        probe.answer("80 points")
        rule.left(":1.9")
        #expect(rule.speaks, "another connection leaving changes nothing")
        rule.left(":1.7")
        #expect(!rule.speaks)
    }

    @Test("an answer that comes after focus moved on, or after the object lost it, is not taken")
    func lateAnswer() {
        let (rule, probe) = make()
        rule.focused(track)
        rule.focused(otherApp)
        probe.answer("60 points")  // the track's, too late
        #expect(!rule.speaks)
        #expect(probe.questions.map(\.object) == [otherApp], "the newest focus asked about now")
        probe.answer(nil)
        rule.focused(track)
        rule.unfocused(track)
        probe.answer("60 points")
        #expect(!rule.speaks)
        rule.focused(track)
        rule.left(":1.7")
        probe.answer("60 points")
        #expect(!rule.speaks)
    }

    @Test("one question at a time: focus taken faster than answers come asks about the newest only")
    func oneAtATime() {
        let (rule, probe) = make()
        rule.focused(button)
        for _ in 0..<100 {
            rule.focused(otherApp)
            rule.focused(track)
        }
        #expect(probe.questions.map(\.object) == [button])
        probe.answer(nil)
        #expect(probe.questions.map(\.object) == [track])
        probe.answer("80 points")
        #expect(rule.speaks)
        #expect(probe.questions.isEmpty)
    }

    @Test("the value texts follow a reload: the old words no longer count")
    func newWords() {
        let (rule, probe) = make()
        rule.valueTexts = ["20 pt", "40 pt", "60 pt", "80 pt", "100 pt"]
        rule.focused(track)
        probe.answer("60 points")
        #expect(!rule.speaks)
        rule.focused(track)
        probe.answer("60 pt")
        #expect(rule.speaks)
    }

    @Test(
        "the speaker while the rule holds: no commit spoken, a step stopped by an end said as the end only when it moved"
    )
    func speakerQuiet() {
        let loop = EventLoop(clock: .manual())
        let channel = SpeakerTests.Channel()
        channel.hasAnnouncementListener = true
        let speaker = Speaker(mode: .changes, valueTexts: texts, loop: loop)
        speaker.channel = channel
        channel.focusedValueSpeaks = true
        speaker.committed(index: 3)  // the panel's value event says "80 points"
        loop.advanceTime(by: 1)
        speaker.reachedLimit(largest: true, index: 4, moved: false)  // no value event: said in full
        loop.advanceTime(by: 1)
        speaker.committed(index: 3)
        speaker.reachedLimit(largest: false, index: 0, moved: true)  // the value event says the size
        loop.advanceTime(by: 1)
        channel.focusedValueSpeaks = false
        speaker.committed(index: 2)
        #expect(
            channel.said == [
                "announcement: 100 points, largest size", "announcement: smallest size",
                "announcement: 60 points"
            ])
    }
}
