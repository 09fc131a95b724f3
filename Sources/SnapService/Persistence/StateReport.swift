import SizeSelectorContract

/// Where the committed size is saved, for the person: the `StateFile` and `StateSaving` properties
/// (`snapsizectl status` and `doctor` show them), because the daemon's log is not where a person
/// looks. Set at start (--no-state, no home folder at all, or the state file and whether its folder
/// takes it) and whenever saving starts to fail or works again; `onChange` runs then.
public final class StateReport {
    /// Empty when nothing is saved.
    public let path: String
    public private(set) var saving: StateSaving
    var onChange: (() -> Void)?

    public init(path: String? = nil, saving: StateSaving = .off) {
        self.path = path ?? ""
        self.saving = saving
    }

    /// Follows `store` from now on: its place at start, then every change in its saves' outcome.
    func follow(_ store: StateStore) {
        saving = store.placeProblem().map(StateSaving.failing) ?? .saved
        // Unowned, not weak: a weak reference gives the object a side table, and every retain and
        // release of it then takes the slow path (make profile counts it in every call).
        store.onProblemChange = { [unowned self] problem in
            self.set(problem.map(StateSaving.failing) ?? .saved)
        }
    }

    func set(_ saving: StateSaving) {
        guard saving != self.saving else { return }
        self.saving = saving
        onChange?()
    }
}
