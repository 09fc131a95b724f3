import DBusKit
import SnapCore

/// The error names of org.snapsize.SizeSelector1 (see dbus/org.snapsize.SizeSelector1.xml).
public enum SizeSelectorError {
    public static let previewActive = ErrorName(rawValue: "org.snapsize.SizeSelector1.Error.PreviewActive")!
    public static let outOfRange = ErrorName(rawValue: "org.snapsize.SizeSelector1.Error.OutOfRange")!
    public static let noAccessibility = ErrorName(rawValue: "org.snapsize.SizeSelector1.Error.NoAccessibility")!
}

/// The one place core errors become bus errors. No `default`: a new SnapError case does not
/// compile until it is given a name here.
extension SnapError: DBusErrorConvertible {
    public var dbusError: MethodError {
        let message = description.prefix(1).uppercased() + description.dropFirst() + "."
        switch self {
        case .previewActive:
            return MethodError(name: SizeSelectorError.previewActive, message: message)
        case .indexOutOfRange:
            return MethodError(name: SizeSelectorError.outOfRange, message: message)
        case .nonFinite, .emptySizes, .unsortedSizes, .invalidTrack:
            return MethodError(name: .invalidArgs, message: message)
        }
    }
}

extension ModelError: DBusErrorConvertible {
    public var dbusError: MethodError {
        switch self {
        case .refused(let error):
            return error.dbusError
        case .saveFailed(let problem):
            return MethodError(name: .failed, message: "The size could not be saved, so nothing changed: \(problem).")
        }
    }
}
