import DBusKit
import SizeSelectorContract
import SnapCore
import SnapTexts

/// The one place core errors become bus errors. No `default`: a new SnapError case does not
/// compile until it is given a name here.
extension SnapError: DBusErrorConvertible {
    public var dbusError: MethodError {
        let message = Texts.refusal(self)
        switch self {
        case .previewActive:
            return MethodError(.previewActive, message)
        case .indexOutOfRange:
            return MethodError(.outOfRange, message)
        case .nonFinite, .emptySizes, .unsortedSizes, .invalidTrack:
            return MethodError(.invalidArgs, message)
        }
    }
}

extension ModelError: DBusErrorConvertible {
    public var dbusError: MethodError {
        switch self {
        case .refused(let error):
            return error.dbusError
        case .saveFailed(let problem):
            return MethodError(.failed, Texts.saveFailed(problem))
        case .nothingToUndo:
            return MethodError(.nothingToUndo, Texts.nothingToUndo)
        case .nothingToRedo:
            return MethodError(.nothingToRedo, Texts.nothingToRedo)
        }
    }
}

extension FocusFailure: DBusErrorConvertible {
    public var dbusError: MethodError {
        switch self {
        case .turnedOff:
            return MethodError(.noAccessibility, Texts.accessibilityTurnedOff)
        case .noBus:
            return MethodError(.noAccessibility, Texts.noAccessibilityBus)
        case .notAnswering(let seconds):
            return MethodError(
                .accessibilityNotAnswering, Texts.accessibilityNotAnswering(seconds: seconds))
        }
    }
}
