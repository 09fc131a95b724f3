@testable import SnapService

/// An adapter registered after the model's others: records every change it is told, with what
/// `read` returns at that moment (what was on disk, say). The model does not keep it alive: the
/// test holds it.
final class ChangeRecorder<Seen>: ModelAdapter {
    private(set) var heard: [(change: ModelChange, seen: Seen)] = []
    private let read: () -> Seen

    init(_ model: SelectionModel, reading read: @escaping () -> Seen) {
        self.read = read
        model.adapters.append(self)
    }

    var changes: [ModelChange] { heard.map(\.change) }

    func modelChanged(_ change: ModelChange) {
        heard.append((change, read()))
    }
}

extension ChangeRecorder where Seen == Void {
    convenience init(_ model: SelectionModel) {
        self.init(model, reading: {})
    }
}
