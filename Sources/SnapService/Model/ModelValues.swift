import SizeSelectorContract

/// The model as the contract's properties read it.
struct ModelValues: SelectorValues {
    let model: SelectionModel
    /// Kept by SizeSelectorObject, which knows who called.
    let changedBy: ClientIdentity
    /// The config file's, from the daemon's ConfigReport (not the selection's: the model never holds them).
    let configProblems: [String]
    /// The daemon's StateReport.
    let state: StateReport

    var sizes: [Int] { model.sizes.sizes }
    var selectedIndex: Int { model.committedIndex }
    var selectedSize: Int { model.committedSize }
    var shownIndex: Int { model.shownIndex }
    var shownSize: Int { model.shownSize }
    var previewing: Bool { model.isPreviewing }
    var valueText: String { model.valueText }
    var valueTexts: [String] { model.valueTexts }
    var label: String { model.texts.label }
    var trackWidth: Double { model.snapper.track.width }
    var trackInset: Double { model.snapper.track.inset }
    var layout: String { model.snapper.layout.rawValue }
    var canUndo: Bool { model.canUndo }
    var canRedo: Bool { model.canRedo }
    var lastChangeKind: String { model.lastChangeKind?.rawValue ?? "" }
    var stateFile: String { state.path }
    var stateSaving: String { state.saving.wire }
}
