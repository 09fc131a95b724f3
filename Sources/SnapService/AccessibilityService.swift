import AtSpi
import DBusKit
import SnapCore
import SnapSettings

/// The accessible side of the daemon: joins the accessibility bus (whenever it is there), shows
/// the selection as an AT-SPI slider, and tells screen readers what changed.
///
/// It only observes the model. A change of the SHOWN index becomes an accessible-value event
/// (and nothing else does); a change of the COMMITTED size while the slider does not hold focus
/// becomes an announcement, coalesced so that a burst of steps yields one announcement carrying
/// the latest value.
///
/// `Daemon` wires `selectionChanged` to the model and hands this object to the D-Bus side as its
/// `FocusRequester`.
final class AccessibilityService: FocusRequester {
    /// At most one announcement per this many seconds.
    static let announcementInterval = 0.25

    let model: SelectionModel
    let announce: DaemonSettings.Announce
    let bus: AccessibilityBus
    private let bridge: SliderBridge
    private var app: AccessibleApplication?
    private var registration: Registration?
    private var announcements: AnnouncementTimer!

    init(model: SelectionModel, session: Connection, loop: EventLoop,
         announce: DaemonSettings.Announce, environment: [String: String]) {
        self.model = model
        self.announce = announce
        bridge = SliderBridge(model: model)
        bus = AccessibilityBus(session: session, loop: loop, environment: environment)
        announcements = AnnouncementTimer(loop: loop, interval: Self.announcementInterval) { [unowned self] in
            guard let app = self.app, !app.isFocused else { return }
            app.announce(self.model.committedValueText)
        }
    }

    func start() {
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
    }

    private func left() {
        app = nil
        registration = nil
        announcements.cancel()
    }

    /// The D-Bus `Focus` method: the slider takes screen-reader focus, if it is on a bus.
    func requestFocus() -> Bool {
        guard let app else { return false }
        app.grabFocus()
        return true
    }

    /// What the model reports changed: a new shown index is an accessible-value event; a new
    /// committed size while the slider is not focused is an announcement (coalesced).
    func selectionChanged(_ change: SelectionChange) {
        guard let app else { return }
        if change.shown != nil { app.valueChanged() }
        if change.committed != nil, !app.isFocused, announce == .changes { announcements.changed() }
    }
}
