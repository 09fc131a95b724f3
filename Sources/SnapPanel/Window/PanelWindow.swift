import CGtk
import GtkShim
import DBusKit
import SizeSelectorContract
import SnapTexts

/// The window of the article's SizeDemo: the label, the circle at the committed size, the control
/// (the "Selected size" line, the track, Smaller and Larger) and the "Applied size" line, plus a
/// notice line for what the daemon says (another client's preview, a refusal, the daemon missing).
/// It owns no selection: everything it draws is the daemon's last word (GetAll, PropertiesChanged,
/// replies), and everything a person does is a call to the daemon.
@MainActor
final class PanelWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    private let heading = gtk_label_new(nil)!
    private let circle = CircleView()
    private let selected = gtk_label_new(nil)!
    private let track: TrackView
    private let smaller = gtk_button_new_with_label(Texts.smallerAction.name)!
    private let larger = gtk_button_new_with_label(Texts.largerAction.name)!
    private let applied = gtk_label_new(nil)!
    private let notice = gtk_label_new(nil)!
    private let accessibility: TrackAccessibility
    private var link: DaemonLink?
    private var view: PanelView?
    private var previews = PreviewQueue()
    /// The last refusal or failure, shown until the next change from the daemon.
    private var problem: String?
    /// Whether the buttons were last set for a drag in progress.
    private var buttonsShowDragging = false
    private let trace: Trace

    init(grab: GrabMode, trace: Trace, quit: @escaping () -> Void) {
        self.trace = trace
        track = TrackView(grab: grab)
        accessibility = TrackAccessibility(track: track.widget)
        window = gtk_window_new()
        self.quit = quit
        gtk_window_set_title(shim_window(window), PanelTexts.title)
        layout()
        connect()
    }

    private let quit: () -> Void
    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    private static func from(_ data: UnsafeMutableRawPointer?) -> PanelWindow {
        Unmanaged<PanelWindow>.fromOpaque(data!).takeUnretainedValue()
    }

    private func layout() {
        let page = gtk_box_new(GTK_ORIENTATION_VERTICAL, 24)!
        for side in [
            gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
            gtk_widget_set_margin_end
        ] {
            side(page, 32)
        }
        gtk_widget_add_css_class(heading, "heading")
        let control = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        gtk_box_append(shim_box(buttons), smaller)
        gtk_box_append(shim_box(buttons), larger)
        for widget in [selected, track.widget, buttons] { gtk_box_append(shim_box(control), widget) }
        gtk_label_set_wrap(shim_label(notice), 1)
        gtk_label_set_max_width_chars(shim_label(notice), 50)
        gtk_widget_set_visible(notice, 0)
        for widget in [heading, circle.widget, control, applied, notice] {
            gtk_box_append(shim_box(page), widget)
        }
        gtk_window_set_child(shim_window(window), page)
        gtk_widget_set_sensitive(smaller, 0)
        gtk_widget_set_sensitive(larger, 0)
    }

    private func connect() {
        track.onAction = { [unowned self] in pointer($0) }
        track.onKey = { [unowned self] in key($0) }
        track.onFocus = { [unowned self] in accessibility.focused = $0 }
        if trace.enabled { track.onFrame = { [unowned self] in trace.frame(thumbIndex: $0) } }
        shim_track_on_set_value(
            track.widget,
            { _, value, data in
                MainActor.assumeIsolated { PanelWindow.from(data).screenReaderSet(value) }
                // Always taken: the daemon's slider answers a write it cannot carry out without an
                // error too (libatspi 2.46 aborts its own process on an error reply to it).
                return 1
            }, context)
        shim_on_void(
            smaller, "clicked",
            { _, data in
                MainActor.assumeIsolated { PanelWindow.from(data).step(.decrement) }
            }, context)
        shim_on_void(
            larger, "clicked",
            { _, data in
                MainActor.assumeIsolated { PanelWindow.from(data).step(.increment) }
            }, context)
        // The window losing focus or being hidden ends a drag without a commit (and, on GTK 4.8, takes the
        // size out of the track's description until it is back: TrackAccessibility).
        shim_on_notify(
            window, "is-active",
            { window, _, data in
                MainActor.assumeIsolated {
                    let panel = PanelWindow.from(data)
                    let active = gtk_window_is_active(shim_window(window)) != 0
                    if !active { panel.track.cancelDrag() }
                    panel.accessibility.windowActive = active
                }
            }, context)
        shim_on_void(
            window, "unmap",
            { _, data in
                MainActor.assumeIsolated { PanelWindow.from(data).track.cancelDrag() }
            }, context)
        shim_on_bool(
            window, "close-request",
            { _, data in
                MainActor.assumeIsolated { PanelWindow.from(data).quit() }
                return 0
            }, context)
    }

    /// How long the window waits for the daemon's first answer before it shows itself anyway (a bus
    /// that does not answer must not leave the person with nothing on screen).
    static let presentWithoutAnswerMilliseconds: guint = 1000

    /// Connects to the daemon; the window is shown with its first answer (or failure), laid out for
    /// the daemon's track: without a window manager, an X11 window keeps the size it was first shown at.
    func open() {
        trace.started(window: window, track: track.widget, value: accessibility.hasValue)
        g_timeout_add(
            Self.presentWithoutAnswerMilliseconds,
            { data in
                MainActor.assumeIsolated { PanelWindow.from(data).present() }
                return 0  // G_SOURCE_REMOVE
            }, context)
        do {
            let link = try DaemonLink { [unowned self] in self.daemon($0) }
            self.link = link
            link.start()
        } catch {
            show(problem: PanelTexts.noSessionBus(SafeText.shown(error.message)))
        }
    }

    private var presented = false

    private func present() {
        guard !presented else { return }
        presented = true
        gtk_window_present(shim_window(window))
    }

    // MARK: What the daemon says

    private func daemon(_ event: DaemonLink.Event) {
        switch event {
        case .state(let state):
            problem = nil
            render(PanelView(state: state, ownName: link?.uniqueName ?? ""))
        case .change(let change):
            guard var view else { return }
            view.state.apply(change)
            problem = nil
            render(view)
        case .vanished:
            trace.problem("vanished")
            show(problem: PanelTexts.daemonStopped)
        case .unreachable(let error):
            trace.problem(error.name.rawValue)
            show(
                problem: PanelTexts.daemonUnreachable(
                    SafeText.shown("\(error.name.rawValue): \(error.message)")))
        }
    }

    private func render(_ view: PanelView) {
        self.view = view
        gtk_label_set_text(shim_label(heading), SafeText.shown(view.state.label))
        gtk_label_set_text(shim_label(selected), view.selectedText)
        gtk_label_set_text(shim_label(applied), view.appliedText)
        circle.show(
            diameter: view.circleSize, largest: view.state.sizes.last ?? 0, name: view.circleName)
        track.show(
            trackWidth: view.state.trackWidth, inset: view.state.trackInset, ticks: view.tickPositions,
            thumbIndex: view.thumbIndex)
        buttonsShowDragging = track.isDragging
        let smallerOn = view.smallerEnabled && !track.isDragging,
            largerOn = view.largerEnabled && !track.isDragging
        gtk_widget_set_sensitive(smaller, smallerOn ? 1 : 0)
        gtk_widget_set_sensitive(larger, largerOn ? 1 : 0)
        accessibility.show(
            label: SafeText.shown(view.state.label), committed: view.committedIndex,
            last: view.lastIndex, valueText: view.valueText(view.committedIndex),
            shownText: view.valueText(view.thumbIndex))
        showNotice(problem ?? view.holderNotice)
        trace.state(view, smaller: smallerOn, larger: largerOn)
        present()
    }

    private func show(problem: String) {
        self.problem = problem
        showNotice(problem)
        present()
    }

    private func showNotice(_ text: String?) {
        gtk_label_set_text(shim_label(notice), text ?? "")
        gtk_widget_set_visible(notice, text == nil ? 0 : 1)
    }

    // MARK: What a person does

    /// How long a call of the pointer (Preview, Commit, Cancel) waits for the daemon's answer before
    /// going back to GTK, in microseconds: one frame at 60 Hz. GTK draws a frame right after a press or
    /// a release (they restyle the track) and right after a motion (held until its frame clock's next
    /// cycle), and its frame clock then starts no other frame for a refresh interval. An answer that
    /// came a moment later would be drawn a frame late; waiting lets that frame show it. Waiting longer
    /// than a frame would hold back what GTK could draw meanwhile. With one Preview in flight, a daemon
    /// that does not answer costs one such wait, not one per motion.
    static let answerWaitMicroseconds = 16_667

    private func pointer(_ action: DragAction) {
        switch action {
        case .preview(let x):
            trace.motion(eventTime: track.eventTime)
            if let now = previews.request(x) { sendPreview(now) }
        case .commit(let x):
            previews.dropWaiting()
            trace.sent("Commit", x)
            callAwaitingAnswer(.commit, shim_tuple_d(x)) { [unowned self] in refused($0) }
        case .cancel:
            previews.dropWaiting()
            trace.sent("Cancel", nil)
            callAwaitingAnswer(.cancel, nil) { [unowned self] in refused($0) }
        }
        // The buttons are insensitive while dragging: set when a drag starts or ends, not per motion
        // (the thumb moves with the daemon's answer, which renders).
        if let view, track.isDragging != buttonsShowDragging { render(view) }
    }

    private func sendPreview(_ x: Double) {
        trace.sent("Preview", x)
        callAwaitingAnswer(.preview, shim_tuple_d(x)) { [unowned self] result in
            refused(result)
            if case .failure = result {
                track.abandonDrag()
                previews.dropWaiting()
            }
            if let next = previews.answered() { sendPreview(next) }
        }
    }

    private func callAwaitingAnswer(
        _ method: SelectorMethod, _ parameters: OpaquePointer?,
        reply: @escaping (Result<[DBusValue], MethodError>) -> Void
    ) {
        link?.callAwaitingAnswer(method, parameters, within: Self.answerWaitMicroseconds, reply: reply)
    }

    private func key(_ key: TrackKey) {
        switch key {
        case .step(let steps): step(steps > 0 ? .increment : .decrement)
        case .first: link?.call(.setIndex, shim_tuple_u(0)) { [unowned self] in refused($0) }
        case .last:
            let last = UInt32(max((view?.state.sizes.count ?? 1) - 1, 0))
            link?.call(.setIndex, shim_tuple_u(last)) { [unowned self] in refused($0) }
        }
    }

    /// A screen reader wrote the track's value (GTK 4.10+): what the daemon's slider does with a write,
    /// rounded to an index, clamped, and committed through the daemon (SetIndex); nothing during a drag
    /// or for a value that is not a number. The daemon's refusal shows in the notice line, as for a key.
    private func screenReaderSet(_ value: Double) {
        guard value.isFinite, let view, !track.isDragging else { return }
        let index = UInt32(min(max(value.rounded(), 0), Double(view.lastIndex)))
        trace.sent("SetIndex", Double(index))
        link?.call(.setIndex, shim_tuple_u(index)) { [unowned self] in refused($0) }
    }

    private func step(_ method: SelectorMethod) {
        trace.sent(method.name, nil)
        link?.call(method) { [unowned self] in refused($0) }
    }

    /// A call the daemon refused (another client's preview, a state file it cannot write) or that did not
    /// reach it: the daemon's own sentence, in its language, in the notice line.
    private func refused(_ result: Result<[DBusValue], MethodError>) {
        guard case .failure(let error) = result else { return }
        trace.refused(error.name.rawValue)
        show(problem: SafeText.shown(error.message))
    }
}
