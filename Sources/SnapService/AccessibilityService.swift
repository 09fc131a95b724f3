import AtSpi
import DBusKit
import SnapCore
import SnapSettings

/// The accessible side of the daemon: joins the accessibility bus (whenever it is there), shows
/// the selection as an AT-SPI slider, and tells screen readers what changed.
///
/// It only observes the model. A change of the SHOWN index becomes an accessible-value event
/// (and nothing else does); a change of the COMMITTED size, and a step stopped by an end, go to
/// the `Speaker`, which makes them heard once (an announcement or the status bar's notification).
///
/// `Daemon` wires `selectionChanged` and `reachedLimit` to the model and hands this object to the
/// D-Bus side as its `FocusRequester`.
final class AccessibilityService: SpeechChannel, FocusRequester {
    let model: SelectionModel
    /// Changed by a reload (SIGHUP): the speaker follows.
    var announce: DaemonSettings.Announce {
        didSet { speaker.mode = announce }
    }
    let bus: AccessibilityBus
    private let bridge: SliderBridge
    private var app: AccessibleApplication?
    private var registration: Registration?
    private var listeners: EventListeners?
    private let speaker: Speaker
    private let loop: EventLoop
    /// A `Focus` asked for before the slider was ready: its expiry.
    private var focusWanted: TimerID?

    init(model: SelectionModel, session: Connection, loop: EventLoop,
         announce: DaemonSettings.Announce, environment: [String: String]) {
        self.model = model
        self.announce = announce
        bridge = SliderBridge(model: model)
        speaker = Speaker(mode: announce, valueTexts: model.valueTexts, loop: loop)
        speaker.onDropped = { log($0) }
        self.loop = loop
        bus = AccessibilityBus(session: session, loop: loop, environment: environment)
    }

    func start() {
        bus.onJoin = { [unowned self] connection in self.joined(connection) }
        bus.onLeave = { [unowned self] in self.left() }
        bus.start()
    }

    func stop() {
        speaker.stop()
        if let focusWanted { loop.cancel(focusWanted) }
        focusWanted = nil
        left()
        bus.close()
    }

    private func joined(_ connection: Connection) {
        let app = AccessibleApplication(connection: connection, source: bridge,
                                        info: ApplicationInfo(name: "snapsize", toolkitName: "snapsize",
                                                              version: Daemon.version))
        do {
            try app.export()
        } catch {
            log("cannot show the slider on the accessibility bus: \(error.message)")
            return
        }
        let registration = Registration(connection: connection, app: app)
        registration.onChange = { [unowned self] in self.readinessChanged() }
        self.app = app
        self.registration = registration
        if announce == .changes {
            let listeners = EventListeners(connection: connection)
            listeners.onChange = { [unowned self] in self.readinessChanged() }
            listeners.start()
            self.listeners = listeners
        }
        registration.start()
    }

    private func left() {
        app = nil
        registration = nil
        listeners = nil
        readinessChanged()
    }

    /// Ready: the registry lists the application (Orca knows it), and which events screen readers
    /// listen for is known (so the speaker picks the right way). What was said or asked for before
    /// is carried out now.
    private var isReady: Bool {
        app != nil && registration?.isEmbedded == true && (listeners?.isKnown ?? true)
    }

    private func readinessChanged() {
        guard isReady else {
            if speaker.channel != nil { speaker.lost() }
            return
        }
        guard speaker.channel == nil else { return }
        if let focusWanted {
            loop.cancel(focusWanted)
            self.focusWanted = nil
            app?.grabFocus()
            speaker.focusPresented()
        }
        speaker.channel = self
    }

    /// The D-Bus `Focus` method: the slider takes screen-reader focus now, or as soon as it is on
    /// the bus if it is on its way there (within the speaker's bound; after it, the request is
    /// dropped and logged). False only when no accessibility bus is running.
    func requestFocus() -> Bool {
        if isReady, let app {
            app.grabFocus()
            return true
        }
        guard app != nil || bus.isSearching else { return false }
        if let focusWanted { loop.cancel(focusWanted) }
        focusWanted = loop.schedule(after: Speaker.readyBound) { [unowned self] in
            self.focusWanted = nil
            log("the accessibility bus was not ready within \(Speaker.readyBound) s; the slider did not take focus")
        }
        return true
    }

    /// What the model reports changed: a new shown index is an accessible-value event; a new
    /// committed size goes to the speaker.
    func selectionChanged(_ change: SelectionChange) {
        if change.shown != nil { app?.valueChanged() }
        // Also before the slider is ready: the speaker keeps it until then.
        if change.committed != nil { speaker.committed(index: model.committedIndex) }
    }

    /// New words (a reload): the speaker speaks them from now on, and clients hear that the
    /// slider's name and description changed (libatspi's cache would serve the old ones otherwise).
    func textsChanged(_ change: SelectionModel.TextsChange) {
        speaker.valueTexts = model.valueTexts
        guard let app else { return }
        if change.label { app.nameChanged() }
        if change.valueTexts { app.descriptionChanged() }
        if change.valueTexts { app.valueChanged() }
    }

    /// A new list, track or layout (a reload): the speaker speaks the new value texts; clients hear
    /// that the description (which names the list) and the value (its maximum, its text) changed;
    /// a new committed size is spoken as any commit is.
    func snapperChanged(_ change: SelectionModel.SnapperChange) {
        speaker.valueTexts = model.valueTexts
        if let app {
            if change.sizes || change.valueTexts { app.descriptionChanged() }
            if change.sizes || change.committedIndex || change.committedSize || change.valueText { app.valueChanged() }
        }
        if change.committedIndex || change.committedSize { speaker.committed(index: model.committedIndex) }
    }

    /// A step was stopped by an end of the list (`moved`: it changed the selection first).
    func reachedLimit(largest: Bool, moved: Bool) {
        speaker.reachedLimit(largest: largest, index: model.committedIndex, moved: moved)
    }

    // MARK: SpeechChannel

    var isFocused: Bool { app?.isFocused ?? false }
    var hasAnnouncementListener: Bool { listeners?.hasAnnouncementListener ?? false }
    func announce(_ text: String) { app?.announce(text) }
    func notify(_ text: String) { app?.notify(text) }
}
