import AtSpi
import SizeSelectorContract
import SnapCore
import SnapTexts

/// The accessible slider's view of the selection: reads through the model, writes through the
/// same core transitions as the D-Bus methods (SetIndex's path for a value write, Increment's for
/// an action), so every observer — PropertiesChanged, Committed, persistence — sees them alike.
final class SliderBridge: SliderSource {
    let model: SelectionModel
    /// The accessibility bus's callers (while it is joined), for who wrote or acted in the history.
    var clients: ClientDirectory?

    init(model: SelectionModel) {
        self.model = model
    }

    /// Read through the model: a reload (SIGHUP) may change the words, the list and the track.
    var label: String { model.texts.label }
    var choicesDescription: String { model.texts.description(of: model.sizes) }
    let largerAction = Texts.largerAction
    let smallerAction = Texts.smallerAction
    var indexValue: Double { Double(model.shownIndex) }
    var minimumIndexValue: Double { 0 }
    var maximumIndexValue: Double { Double(model.sizes.lastIndex) }
    var valueText: String { model.valueText }
    var shownSize: Int { model.shownSize }
    var committedSize: Int { model.committedSize }
    var trackWidth: Double { model.snapper.track.width }

    /// Refused writes and actions are logged, but at most one line of each per 10 s: a client may
    /// repeat them endlessly.
    let refusals = LimitedLog(interval: 10)
    let actionRefusals = LimitedLog(interval: 10)

    private func cause(_ sender: String) -> ChangeCause {
        ChangeCause(
            .accessible,
            by: clients?.identity(of: sender) ?? ClientIdentity(uniqueName: sender, pid: 0, command: ""))
    }

    func setIndexValue(_ value: Double, by sender: String) -> Bool {
        do {
            try model.perform(as: cause(sender)) { selection throws(SnapError) in
                try selection.set(indexValue: value)
            }
            return true
        } catch {
            refusals.log("refused an accessibility value write of \(value): \(error.dbusError.message)")
            return false
        }
    }

    func step(by steps: Int, sender: String) -> Bool {
        do {
            let result = try model.step(by: steps, as: cause(sender))
            return !result.atLimit
        } catch {
            actionRefusals.log(
                "refused an accessibility action (\(steps > 0 ? "increment" : "decrement")): \(error.dbusError.message)"
            )
            return false
        }
    }

    /// A call on the accessibility bus answered in a group whose changes were undone because they
    /// could not be saved: an action (its reply said false) or a value write (Properties.Set, whose
    /// value stayed). Reads in the same group changed nothing and are not logged.
    func undone(_ member: String, because reason: String) {
        switch member {
        case "DoAction": actionRefusals.log("refused an accessibility action: \(reason)")
        case "Set": refusals.log("refused an accessibility value write: \(reason)")
        default: break
        }
    }
}
