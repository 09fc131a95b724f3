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
final class AccessibilityService: SpeechChannel {
    let model: SelectionModel
    let object: SizeSelectorObject
    let loop: EventLoop
    let announce: DaemonSettings.Announce
    let bus: AccessibilityBus
    private let bridge: SliderBridge
    private var app: AccessibleApplication?
    private var registration: Registration?
    private var listeners: EventListeners?
    private let speaker: Speaker

    init(model: SelectionModel, object: SizeSelectorObject, session: Connection, loop: EventLoop,
         announce: DaemonSettings.Announce, environment: [String: String]) {
        self.model = model
        self.object = object
        self.loop = loop
        self.announce = announce
        bridge = SliderBridge(model: model)
        speaker = Speaker(mode: announce, valueTexts: model.valueTexts, loop: loop)
        bus = AccessibilityBus(session: session, loop: loop, environment: environment)
    }

    func start() {
        // First: a person waits on the screen reader (keypress -> value event -> speech), so the
        // accessible-value event goes out before the session-bus signals (make bench: call ->
        // accessible-value event); the session bus's PropertiesChanged/Committed keep their order.
        model.observe(first: true) { [unowned self] change in self.changed(change) }
        model.observeLimits { [unowned self] largest, moved in
            self.speaker.reachedLimit(largest: largest, index: self.model.committedIndex, moved: moved)
        }
        bus.onJoin = { [unowned self] connection in self.joined(connection) }
        bus.onLeave = { [unowned self] in self.left() }
        bus.start()
    }

    func stop() {
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
        registration.start()
        self.app = app
        self.registration = registration
        if announce == .changes {
            let listeners = EventListeners(connection: connection)
            listeners.start()
            self.listeners = listeners
        }
        speaker.channel = self
        object.focus = { [unowned app] in app.grabFocus() }
    }

    private func left() {
        object.focus = nil
        app = nil
        registration = nil
        listeners = nil
        speaker.cancel()
        speaker.channel = nil
    }

    private func changed(_ change: SelectionChange) {
        guard let app else { return }
        if change.shown != nil { app.valueChanged() }
        if change.committed != nil { speaker.committed(index: model.committedIndex) }
    }

    // MARK: SpeechChannel

    var isFocused: Bool { app?.isFocused ?? false }
    var hasAnnouncementListener: Bool { listeners?.hasAnnouncementListener ?? false }
    func announce(_ text: String) { app?.announce(text) }
    func notify(_ text: String) { app?.notify(text) }
}
