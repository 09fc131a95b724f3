import DBusKit

/// Writes the model's history to its file after the reply, never before: the adapter that comes
/// last, it only schedules a write, `delay` seconds after the first change not written yet, and
/// then writes every change since at once. So a run of changes costs one write per `delay`, not one
/// per change (make profile counts every instruction a call costs), and a crash loses at most the
/// last `delay` of entries, never an acknowledged size (that is the state file's, saved before the
/// reply). An orderly stop writes what is left. A file that cannot be written is logged once and
/// never refuses a change.
final class HistoryWriter {
    let model: SelectionModel
    let file: HistoryFile
    private let loop: EventLoop
    private var pending: TimerID?
    static let delay = 0.1

    init(model: SelectionModel, file: HistoryFile, loop: EventLoop) {
        self.model = model
        self.file = file
        self.loop = loop
    }

    /// Whether a fact is something the history file holds.
    static func writes(_ fact: ModelFact) -> Bool {
        switch fact {
        case .lastChange, .canUndo, .canRedo: true
        case .sizes, .trackWidth, .trackInset, .layout, .label, .valueTexts, .committedIndex,
            .committedSize, .shownIndex,
            .shownSize, .valueText, .previewing, .stoppedAtEnd, .previewTouched:
            false
        }
    }

    private static let concerns = ModelFacts(ModelFact.allCases.filter(writes))

    /// Writes now what is not written yet (the orderly stop).
    func flush() {
        if let pending { loop.cancel(pending) }
        pending = nil
        if let problem = file.write(model.history) { log(problem) }
    }
}

extension HistoryWriter: ModelAdapter {
    func modelChanged(_ change: ModelChange) {
        guard change.facts.rawValue & Self.concerns.rawValue != 0, pending == nil else { return }
        pending = loop.schedule(after: Self.delay) { [unowned self] in
            self.pending = nil
            self.flush()
        }
    }
}
