import DBusKit
import SnapSettings
import SnapTexts

/// Where the speaker's words go: the accessible application (AtSpi) in the daemon, a fake in tests.
protocol SpeechChannel: AnyObject {
    /// The slider holds screen-reader focus (a person asked for it, and no other application's
    /// object has taken focus since).
    var isFocused: Bool { get }
    /// Another application's object that shows the committed size as its Value holds focus (a
    /// panel on GTK 4.10+, `FocusedValue`): Orca speaks its value events.
    var focusedValueSpeaks: Bool { get }
    /// A screen reader listens for `object:announcement` (Orca 45+; Orca 43 does not).
    var hasAnnouncementListener: Bool { get }
    func announce(_ text: String)
    func notify(_ text: String)
}

/// Makes every committed change, and every step stopped by an end, heard once, at once, whatever
/// has focus, on Orca 43 and on Orca 45+ (as measured with both under Xvfb):
///
/// - Orca speaks value events only of its locus of focus. While the slider is focused (inside its
///   active frame, which Orca 48 needs to keep it) the value event says the change, on Orca 43 and
///   48 alike: nothing else is sent then, or the value would be said twice.
/// - Unfocused, Orca 45+ speaks `object:announcement` (when the registry lists an announcement
///   listener, every utterance is one); Orca 43 ignores announcements and speaks a NOTIFICATION in
///   the status bar whatever has focus.
///
/// Timing is a throttle with a leading and a trailing edge. The first text after a quiet `window`
/// goes out at once, in the same loop iteration as the change's own events; texts that follow
/// within the window are held, only the newest, and go out when it ends (then the window starts
/// again), unless that is what was said last. So a held key is heard at its first value, about
/// every `window` while it is held, and at its final value once. Never a queue. A limit note is
/// urgent (unless it repeats the last text, as a key held at an end does): it goes out at once,
/// but never closer than `SpeechTiming.minimumGap` to the text before it, because
/// Orca 48 drops an announcement that arrives within 0.1 s of the previous one from the same
/// application (and counts the dropped one as the previous one).
///
/// Before the accessible side is ready (no channel: the slider has not joined the accessibility
/// bus, the registry has not answered, or the listener query has not), the latest text is kept and
/// said once the channel arrives, if that is within `readyBound`; past that it is dropped and
/// logged. Previews are not spoken here; their commit is. The mechanism is chosen when the text
/// goes out, so a screen reader that started or stopped meanwhile is honoured.
final class Speaker {
    /// At most one utterance per window while changes keep coming (`SpeechTiming.window` unless given).
    let window: Double
    /// How long a text said before the accessible side is ready waits for it.
    static let readyBound = 2.0

    /// Changed by a reload (SIGHUP).
    var mode: DaemonSettings.Announce
    /// The value text of each index (the model's, composed once in the daemon's language).
    /// Replaced on a reload (SIGHUP) that changes the unit.
    var valueTexts: [String]
    /// Its timers run on the loop's clock (a manual one in tests).
    let loop: EventLoop
    /// Set while the accessible side is ready to speak; nil before, and after it was lost.
    weak var channel: SpeechChannel? {
        didSet { if channel != nil { deliverKept() } }
    }
    /// Runs with a line to log when a kept text is dropped (the daemon's log).
    var onDropped: ((String) -> Void)? {
        get { kept.onDropped }
        set { kept.onDropped = newValue }
    }

    /// The window's end, while one is open.
    private var windowEnd: TimerID?
    /// The newest text held for the window's end.
    private var trailing: String?
    private var lastSpoken: String?
    private var lastSpokenAt = -Double.infinity
    /// Said before the channel was ready.
    private let kept: UntilReady<String>

    /// A `window` below the minimum gap is a programming error: Orca 48 would drop a burst's last utterance.
    init(
        mode: DaemonSettings.Announce, valueTexts: [String], loop: EventLoop,
        window: Double = SpeechTiming.window
    ) {
        precondition(
            window >= SpeechTiming.minimumGap,
            "a speech window of \(window) s is shorter than Orca's minimum gap")
        self.window = window
        self.mode = mode
        self.valueTexts = valueTexts
        self.loop = loop
        kept = UntilReady(loop: loop, bound: Self.readyBound) { "not spoken: \"\($0)\"" }
    }

    /// The committed index changed to `index`.
    func committed(index: Int) {
        guard mode != .never else { return }
        let text = valueTexts[index]
        if channel != nil, valueEventSpeaks {
            // The value event says the newest value; a held older text would be stale.
            trailing = nil
            lastSpoken = text
        } else {
            offer(text, urgent: false)
        }
    }

    /// A step was stopped by the largest (or smallest) size; the committed index is `index`.
    /// `moved`: the step changed the selection before it stopped.
    func reachedLimit(largest: Bool, index: Int, moved: Bool) {
        guard mode != .never else { return }
        offer(
            moved && channel != nil && valueEventSpeaks
                ? Texts.endSpeech(largest: largest)
                : Texts.limitSpeech(largest: largest, valueText: valueTexts[index]),
            urgent: true)
    }

    /// The slider was given focus, which presents the current value: nothing held needs saying.
    func focusPresented() {
        kept.forget()
        trailing = nil
    }

    /// The accessible side is no longer ready (the bus or the registry was lost): a text held for
    /// the window's end is kept for the next channel instead.
    func lost() {
        if let windowEnd { loop.cancel(windowEnd) }
        windowEnd = nil
        if let trailing { kept.keep(trailing) }
        trailing = nil
        channel = nil
    }

    /// Daemon shutdown: nothing more is said.
    func stop() {
        if let windowEnd { loop.cancel(windowEnd) }
        windowEnd = nil
        trailing = nil
        kept.forget()
    }

    private var usesAnnouncement: Bool {
        switch mode {
        case .changes: channel?.hasAnnouncementListener ?? false
        case .announcement: true
        case .notification, .never: false
        }
    }

    /// Orca speaks the value event itself: of the slider, its locus of focus, or of the focused
    /// object of another application whose Value follows the committed size (the quiet rule).
    private var valueEventSpeaks: Bool {
        guard let channel else { return false }
        return channel.isFocused || channel.focusedValueSpeaks
    }

    private func offer(_ text: String, urgent: Bool) {
        guard channel != nil else { return kept.keep(text) }
        let now = loop.now
        if windowEnd == nil {
            speak(text, at: now)
        } else if urgent, text != lastSpoken, now - lastSpokenAt >= SpeechTiming.minimumGap {
            trailing = nil
            speak(text, at: now)
        } else {
            trailing = text
            if urgent, text != lastSpoken {
                // Out as soon as the gap allows, not at the window's end.
                openWindow(until: lastSpokenAt + SpeechTiming.minimumGap)
            }
        }
    }

    private func speak(_ text: String, at now: Double) {
        guard let channel else { return }
        if usesAnnouncement {
            channel.announce(text)
        } else {
            channel.notify(text)
        }
        lastSpoken = text
        lastSpokenAt = now
        openWindow(until: now + window)
    }

    private func openWindow(until end: Double) {
        if let windowEnd { loop.cancel(windowEnd) }
        windowEnd = loop.schedule(after: max(0, end - loop.now)) { [unowned self] in self.windowEnded() }
    }

    private func windowEnded() {
        windowEnd = nil
        guard let text = trailing else { return }
        trailing = nil
        if text != lastSpoken {
            speak(text, at: loop.now)
        } else {
            // Still coming (a key held at an end): not a quiet moment yet.
            openWindow(until: loop.now + window)
        }
    }

    private func deliverKept() {
        if let text = kept.take() { offer(text, urgent: false) }
    }
}
