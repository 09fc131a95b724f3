import AtSpi
import DBusKit
import SnapCore
import SnapSettings

/// The accessible side of the daemon: joins the accessibility bus (whenever it is there), shows
/// the selection as an AT-SPI slider, and tells screen readers what changed.
///
/// It only observes the model (a `ModelAdapter`). A change of the SHOWN index becomes an
/// accessible-value event; a change of the COMMITTED size, and a step stopped by an end, go to
/// the `Speaker`, which makes them heard once (an announcement or the status bar's notification).
///
/// `Daemon.wire` registers it with the model and hands it to the D-Bus side as its `FocusRequester`.
final class AccessibilityService: SpeechChannel, FocusRequester {
    let model: SelectionModel
    /// Changed by a reload (SIGHUP): the speaker follows, and the registry's listeners are
    /// followed while it is `changes`, as if the daemon had started that way.
    var announce: DaemonSettings.Announce {
        didSet {
            speaker.mode = announce
            if let connection = bus.connection, app != nil { trackListeners(on: connection) }
        }
    }
    let bus: AccessibilityBus
    private let bridge: SliderBridge
    private var app: AccessibleApplication?
    private var registration: RegistryEmbedding?
    private var listeners: EventListeners?
    /// The quiet rule's view of the accessibility focus (`FocusedValue`), while on a bus.
    private var focusWatch: FocusWatch?
    private var focusedValue: FocusedValue?
    private let speaker: Speaker
    /// The daemon's loop: Registration and EventListeners retry on it.
    private let loop: EventLoop
    /// Reads its clients' command lines off the loop (shared with the session bus's clients).
    private let commands: CommandReader
    /// A `Focus` asked for before the slider was ready.
    private let focusWanted: UntilReady<Void>
    /// The answers of the `Focus` calls kept in `focusWanted`.
    private var focusWaiting: [FocusAnswers.Answer] = []
    /// The `Focus` calls whose events went out, until the bus shows it has read them.
    private var focusAnswers: FocusAnswers!
    /// How long the registry has to say which events are listened for (`EventListeners.queryTimeout`).
    private let registryQueryTimeout: Double

    /// `registryQueryTimeout`: nil for `EventListeners.queryTimeout`, or in a debug build the
    /// environment's `SNAPSIZE_TEST_REGISTRY_TIMEOUT` (seconds), so that a test of a registry slower
    /// than the timeout need not wait 10 s for it. The shipped (release) daemon reads no such variable.
    init(
        model: SelectionModel, session: Connection, loop: EventLoop, commands: CommandReader,
        announce: DaemonSettings.Announce, environment: [String: String],
        registryQueryTimeout: Double? = nil
    ) {
        self.model = model
        self.commands = commands
        self.registryQueryTimeout = registryQueryTimeout ?? Self.registryQueryTimeout(environment)
        self.announce = announce
        bridge = SliderBridge(model: model)
        self.loop = loop
        speaker = Speaker(mode: announce, valueTexts: model.valueTexts, loop: loop)
        speaker.onDropped = { log($0) }
        focusWanted = UntilReady(loop: loop, bound: Speaker.readyBound) { _ in
            "the slider did not take focus"
        }
        bus = AccessibilityBus(session: session, loop: loop, environment: environment)
        focusAnswers = FocusAnswers(loop: loop) { [unowned bus] in bus.connection }
        focusWanted.onDropped = { [unowned self] line in
            log(line)
            self.answerWaiting(.notAnswering(seconds: Int(Speaker.readyBound)))
        }
    }

    func start() {
        bus.onJoin = { [unowned self] connection in self.joined(connection) }
        bus.onLeave = { [unowned self] in self.left() }
        bus.start()
    }

    func stop() {
        speaker.stop()
        focusWanted.forget()
        answerWaiting(.noBus)
        focusAnswers.abandon(.noBus)
        left()
        bus.close()
    }

    private func joined(_ connection: Connection) {
        connection.onUndoneReply = { [unowned bridge] member, error in
            bridge.undone(member, because: error.message)
        }
        let app = AccessibleApplication(
            connection: connection, source: bridge,
            info: ApplicationInfo(
                name: "snapsize", toolkitName: "snapsize",
                version: Daemon.version))
        do {
            try app.export()
        } catch {
            log("cannot show the slider on the accessibility bus: \(error.message)")
            return
        }
        let clients = ClientDirectory(connection: connection, commands: commands)
        clients.learned = { [unowned model] identity in model.learned(identity) }
        bridge.clients = clients
        let registration = RegistryEmbedding(connection: connection, app: app, loop: loop)
        registration.onChange = { [unowned self] in self.readinessChanged() }
        self.app = app
        self.registration = registration
        followFocus(on: connection)
        trackListeners(on: connection)
        registration.start()
    }

    /// Which events screen readers listen for matters only to `changes` (it picks the announcement
    /// or the notification by them), so the registry is followed from the first time that is the
    /// mode on this connection; a reload to another mode leaves the tracker be (its handlers live
    /// as long as the connection).
    private func trackListeners(on connection: Connection) {
        guard announce == .changes, listeners == nil else { return }
        let listeners = EventListeners(
            connection: connection, loop: loop, queryTimeout: registryQueryTimeout)
        listeners.onChange = { [unowned self] in self.readinessChanged() }
        listeners.start()
        self.listeners = listeners
    }

    /// The quiet rule follows the accessibility focus from joining on (FocusWatch says what it costs).
    private func followFocus(on connection: Connection) {
        let watch = FocusWatch(connection: connection)
        let rule = FocusedValue(probe: watch, valueTexts: model.valueTexts, label: model.texts.label)
        watch.onFocus = { [unowned rule] object, focused in
            if focused { rule.focused(object) } else { rule.unfocused(object) }
        }
        watch.onOwnFocus = { [unowned rule] in rule.ownFocus() }
        watch.onLeft = { [unowned rule] sender in rule.left(sender) }
        watch.start()
        focusWatch = watch
        focusedValue = rule
    }

    private func left() {
        // Its match rules and handlers go with the connection, as the listeners' do.
        focusWatch = nil
        focusedValue = nil
        bridge.clients = nil
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
        if focusWanted.take() != nil {
            app?.grabFocus()
            speaker.focusPresented()
            let waiting = focusWaiting
            focusWaiting = []
            for answer in waiting { focusAnswers.sent(answer) }
        }
        speaker.channel = self
    }

    /// The D-Bus `Focus` method: the slider takes screen-reader focus now, or as soon as it is on
    /// the bus if it is on its way there (within the speaker's bound; after it, the request is
    /// dropped and logged). `answer` runs once the accessibility bus has shown that it took the
    /// focus events (`FocusAnswers`), or with why not: no accessibility bus running, or none that
    /// answers within the bound.
    func requestFocus(_ answer: @escaping (FocusFailure?) -> Void) {
        if isReady, let app {
            app.grabFocus()
            focusAnswers.sent(answer)
            return
        }
        guard app != nil || bus.isSearching else { return answer(.noBus) }
        guard focusWaiting.count < FocusAnswers.maximumWaiting else {
            return answer(.notAnswering(seconds: Int(Speaker.readyBound)))
        }
        focusWanted.keep(())
        focusWaiting.append(answer)
    }

    private func answerWaiting(_ failure: FocusFailure) {
        let waiting = focusWaiting
        focusWaiting = []
        for answer in waiting { answer(failure) }
    }

    /// What one fact means on the accessibility bus, as events and speech.
    struct Reaction: OptionSet {
        let rawValue: UInt8
        /// The speaker's value texts follow the model's.
        static let newWords = Reaction(rawValue: 1)
        /// The accessible name (libatspi's cache would serve the old one otherwise).
        static let nameEvent = Reaction(rawValue: 2)
        /// The accessible description, which names the list.
        static let descriptionEvent = Reaction(rawValue: 4)
        /// The accessible value (the shown index, its text, the maximum).
        static let valueEvent = Reaction(rawValue: 8)
        /// The new committed size is spoken.
        static let speakCommit = Reaction(rawValue: 16)
        /// The step stopped by an end is spoken.
        static let speakStop = Reaction(rawValue: 32)
    }

    /// Each fact's reaction: the one place that says which AT-SPI event or speech follows from which fact.
    static func reaction(to fact: ModelFact) -> Reaction {
        switch fact {
        case .sizes: [.newWords, .descriptionEvent, .valueEvent]
        case .valueTexts: [.newWords, .descriptionEvent]
        case .label: .nameEvent
        case .shownIndex, .shownSize, .valueText: .valueEvent
        case .committedIndex, .committedSize: .speakCommit
        case .stoppedAtEnd: .speakStop
        // An undo or redo is spoken as the commit it is; the history itself is not shown.
        case .trackWidth, .trackInset, .layout, .previewing, .canUndo, .canRedo, .lastChange,
            .previewTouched:
            []
        }
    }

    /// Each fact's reaction by the fact's raw value, made once: this runs on every change.
    private static let reactions = ModelFact.allCases.map(reaction(to:))
}

extension AccessibilityService: ModelAdapter {
    /// What the model reports changed, in this order: new words for the speaker; the name, the
    /// description and the value events; then what is spoken (a commit, then a step stopped by an end).
    func modelChanged(_ change: ModelChange) {
        var reaction: Reaction = []
        let reactions = Self.reactions
        for fact in change.facts.cases { reaction.formUnion(reactions[fact.rawValue]) }
        if reaction.contains(.newWords) {
            speaker.valueTexts = model.valueTexts
            focusedValue?.valueTexts = model.valueTexts
        }
        if reaction.contains(.nameEvent) { focusedValue?.label = model.texts.label }
        if let app {
            if reaction.contains(.nameEvent) { app.nameChanged() }
            if reaction.contains(.descriptionEvent) { app.descriptionChanged() }
            if reaction.contains(.valueEvent) { app.valueChanged() }
        }
        // Also before the slider is ready: the speaker keeps it until then.
        if reaction.contains(.speakCommit) { speaker.committed(index: model.committedIndex) }
        if reaction.contains(.speakStop), let stop = change.stop {
            speaker.reachedLimit(largest: stop.largest, index: model.committedIndex, moved: stop.moved)
        }
    }
}

extension AccessibilityService {
    // MARK: SpeechChannel

    var isFocused: Bool { app?.isFocused ?? false }
    var focusedValueSpeaks: Bool { focusedValue?.speaks ?? false }
    var hasAnnouncementListener: Bool { listeners?.hasAnnouncementListener ?? false }
    func announce(_ text: String) { app?.announce(text) }
    func notify(_ text: String) { app?.notify(text) }
}

extension AccessibilityService {
    /// The registry-query timeout a test asked for (debug builds only), else `EventListeners.queryTimeout`.
    static func registryQueryTimeout(_ environment: [String: String]) -> Double {
        #if DEBUG
            if let text = environment["SNAPSIZE_TEST_REGISTRY_TIMEOUT"], let seconds = Double(text),
                seconds > 0, seconds.isFinite
            {
                return seconds
            }
        #endif
        return EventListeners.queryTimeout
    }
}
