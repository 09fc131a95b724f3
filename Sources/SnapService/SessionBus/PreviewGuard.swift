import DBusKit
import SnapCore

/// Makes sure no preview stays stuck: it ends the preview when its owner leaves the bus
/// (NameOwnerChanged, matched for that one name only, so other clients coming and going never
/// wake the daemon) or when the owner sends no Preview for `timeout` seconds.
///
/// It observes the model (a `ModelAdapter`, which `Daemon.wire` registers): nothing else needs to
/// know that it exists.
final class PreviewGuard {
    private let model: SelectionModel
    private let connection: Connection
    private let loop: EventLoop
    /// Changed by a reload (SIGHUP); a preview already open keeps the timer it has.
    var timeout: Double
    private var watched: (owner: PreviewOwner, watch: NameWatch)?
    private var timer: TimerID?

    init(model: SelectionModel, connection: Connection, loop: EventLoop, timeout: Double) {
        self.model = model
        self.connection = connection
        self.loop = loop
        self.timeout = timeout
    }

    /// The owner moved its preview: restart the silence timer.
    private func touched(by owner: PreviewOwner) {
        guard model.previewOwner == owner else { return }
        if let timer { loop.cancel(timer) }
        timer = loop.schedule(after: timeout) { [unowned self] in
            self.timer = nil
            log(
                "the preview of \(owner.name) timed out after \(self.timeout) s without a Preview call; cancelled"
            )
            _ = try? self.model.perform(as: nil) { $0.endPreview() }
        }
    }

    /// A preview opened or closed: watch its owner, or stop watching.
    private func previewChanged() {
        let owner = model.previewOwner
        if watched?.owner == owner { return }
        if let watched {
            connection.cancel(watched.watch)
            self.watched = nil
        }
        if owner == nil, let timer {
            loop.cancel(timer)
            self.timer = nil
        }
        guard let owner else { return }
        let watch = connection.watchNameOwner(owner.id) { [unowned self] newOwner in
            if newOwner == nil { self.vanished(owner) }
        }
        watched = (owner, watch)
        // The owner may have left before the match was in place; the bus answers in order, so
        // asking now closes that gap.
        do {
            try connection.nameHasOwner(owner.id, timeoutMilliseconds: 5000) { [unowned self] reply in
                if case .success(false) = reply { self.vanished(owner) }
            }
        } catch {
            log("could not ask whether \(owner.id) is still on the bus: \(error)")
        }
    }

    private func vanished(_ owner: PreviewOwner) {
        guard model.previewOwner == owner else { return }
        _ = try? model.perform(as: nil) { $0.ownerVanished(owner) }
    }
}

extension PreviewGuard: ModelAdapter {
    /// What each fact asks of the guard.
    enum Duty {
        /// A preview opened or closed: watch its owner, or stop.
        case watch
        /// The owner is still there and moving: restart the silence timer.
        case restartTimer
    }

    static func duty(for fact: ModelFact) -> Duty? {
        switch fact {
        case .previewing: .watch
        case .previewTouched: .restartTimer
        case .sizes, .trackWidth, .trackInset, .layout, .label, .valueTexts, .committedIndex,
            .committedSize,
            .shownIndex, .shownSize, .valueText, .canUndo, .canRedo, .lastChange, .stoppedAtEnd:
            nil
        }
    }

    /// The facts that ask something of the guard: most changes (every step) do not.
    private static let concerns = ModelFacts(ModelFact.allCases.filter { duty(for: $0) != nil })

    /// In the facts' order: a preview that opened with this move is watched first.
    func modelChanged(_ change: ModelChange) {
        for fact in change.facts.intersection(Self.concerns).cases {
            switch Self.duty(for: fact) {
            case .watch: previewChanged()
            case .restartTimer: if let owner = change.previewToucher { touched(by: owner) }
            case nil: break
            }
        }
    }
}
