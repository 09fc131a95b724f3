import DBusKit
import SnapSettings
import SnapTexts

/// Where the speaker's words go: the accessible application (AtSpi) in the daemon, a fake in tests.
protocol SpeechChannel: AnyObject {
    /// The slider holds screen-reader focus (a person asked for it, and no other application's
    /// object has taken focus since).
    var isFocused: Bool { get }
    /// A screen reader listens for `object:announcement` (Orca 45+; Orca 43 does not).
    var hasAnnouncementListener: Bool { get }
    func announce(_ text: String)
    func notify(_ text: String)
}

/// Makes every committed change, and every step stopped by an end, heard exactly once, whatever
/// has focus, on Orca 43 and on Orca 45+ (as measured with both under Xvfb):
///
/// - Orca 45+ speaks `object:announcement` and nothing else a windowless slider sends once it has
///   lost Orca's locus of focus (it always does: it has no window). So when the registry lists an
///   announcement listener, every utterance is an announcement, focused or not.
/// - Orca 43 ignores announcements and speaks value events only of its locus of focus; it speaks a
///   NOTIFICATION in the status bar whatever has focus. So without an announcement listener: the
///   notification while the slider is unfocused, nothing extra while it is focused (the value event
///   is spoken then; both would say the value twice).
///
/// Changes close together are coalesced: the text goes out `delay` seconds after the LAST change
/// (also keeping announcements further apart than the 0.1 s within which Orca 48 drops the later
/// one). Previews are not spoken here; their commit is. The mechanism is chosen when the text goes
/// out, so a screen reader that started or stopped meanwhile is honoured.
final class Speaker {
    static let delay = 0.25

    /// Changed by a reload (SIGHUP).
    var mode: DaemonSettings.Announce
    /// The value text of each index (the model's, composed once in the daemon's language).
    /// Replaced on a reload (SIGHUP) that changes the unit.
    var valueTexts: [String]
    /// Its timers run on the loop's clock (a manual one in tests).
    let loop: EventLoop
    weak var channel: SpeechChannel?
    private var pending: (text: String, timer: TimerID)?

    init(mode: DaemonSettings.Announce, valueTexts: [String], loop: EventLoop) {
        self.mode = mode
        self.valueTexts = valueTexts
        self.loop = loop
    }

    /// The committed index changed to `index`.
    func committed(index: Int) {
        guard mode != .never, channel != nil else { return }
        if valueEventSpeaks {
            // The value event already said the newest value; an older pending text would be stale.
            cancel()
        } else {
            say(valueTexts[index])
        }
    }

    /// A step was stopped by the largest (or smallest) size; the committed index is `index`.
    /// `moved`: the step changed the selection before it stopped.
    func reachedLimit(largest: Bool, index: Int, moved: Bool) {
        guard mode != .never, channel != nil else { return }
        say(moved && valueEventSpeaks ? Texts.endSpeech(largest: largest)
                                      : Texts.limitSpeech(largest: largest, valueText: valueTexts[index]))
    }

    /// The accessible application went away (the accessibility bus was lost).
    func cancel() {
        if let pending { loop.cancel(pending.timer) }
        pending = nil
    }

    private var usesAnnouncement: Bool {
        switch mode {
        case .changes: channel?.hasAnnouncementListener ?? false
        case .announcement: true
        case .notification, .never: false
        }
    }

    /// Orca 43 with the slider as its locus of focus speaks the value event itself.
    private var valueEventSpeaks: Bool {
        !usesAnnouncement && channel?.isFocused == true
    }

    private func say(_ text: String) {
        cancel()
        let timer = loop.schedule(after: Self.delay) { [unowned self] in
            guard let pending = self.pending else { return }
            self.pending = nil
            guard let channel = self.channel else { return }
            if self.usesAnnouncement {
                channel.announce(pending.text)
            } else {
                channel.notify(pending.text)
            }
        }
        pending = (text, timer)
    }
}
