import SnapCore
import SnapTexts

/// A value a person typed (a flag, a config line) that cannot be used, with the sentence to show them.
public struct InvalidValue: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parsers for the values that flags and config files carry. Shared by `snapsized` and
/// `snapsizectl` so both accept and refuse exactly the same text.
public enum OptionValues {
    /// "20,40,60,80,100" (spaces allowed) -> a valid SizeSet.
    public static func sizes(_ text: String, option: String = "--sizes") throws(InvalidValue) -> SizeSet
    {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace() }
        var values: [Int] = []
        for part in parts {
            guard let value = Int(part) else {
                throw InvalidValue(
                    tr("%s: '%s' is not a whole number; give sizes like 20,40,60,80,100", option, part))
            }
            // Sizes travel on D-Bus as int32 ('i').
            guard value >= Int(Int32.min), value <= Int(Int32.max) else {
                throw InvalidValue(
                    tr(
                        "%s: %d is too large; sizes must lie within %d...%d", option, value,
                        Int(Int32.min), Int(Int32.max)))
            }
            values.append(value)
        }
        do {
            return try SizeSet(values)
        } catch {
            throw InvalidValue(option + ": " + Texts.refusal(error))
        }
    }

    /// A finite decimal number such as 51 or 51.5.
    public static func number(_ text: String, option: String) throws(InvalidValue) -> Double {
        guard let value = Double(text.trimmingWhitespace()), value.isFinite else {
            throw InvalidValue(tr("%s: '%s' is not a finite number", option, text))
        }
        return value
    }

    /// A whole number such as 60 or -2.
    public static func integer(_ text: String, option: String) throws(InvalidValue) -> Int {
        guard let value = Int(text.trimmingWhitespace()) else {
            throw InvalidValue(tr("%s: '%s' is not a whole number", option, text))
        }
        return value
    }

    /// "ordinal" or "numeric".
    public static func layout(_ text: String, option: String = "--layout") throws(InvalidValue) -> Layout
    {
        guard let layout = Layout(rawValue: text.trimmingWhitespace()) else {
            throw InvalidValue(tr("%s: '%s' is not a layout; use ordinal or numeric", option, text))
        }
        return layout
    }

    /// A track from a width and an inset, refused when the thumb would not fit.
    public static func track(
        width: Double, inset: Double, options: String = "--track-width/--track-inset"
    ) throws(InvalidValue) -> Track {
        do {
            return try Track(width: width, inset: inset)
        } catch {
            throw InvalidValue(options + ": " + Texts.refusal(error))
        }
    }

    /// The pointer mapping from the values given, the core's defaults for the others.
    public static func snapper(
        sizes: SizeSet?, width: Double?, inset: Double?, layout: Layout?,
        trackOptions: String = "--track-width/--track-inset"
    ) throws(InvalidValue) -> Snapper {
        let track = try track(
            width: width ?? Track.standard.width, inset: inset ?? Track.standard.inset,
            options: trackOptions)
        return Snapper(sizes: sizes ?? .standard, track: track, layout: layout ?? .ordinal)
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

extension String {
    func trimmingWhitespace() -> String { self[...].trimmingWhitespace() }
}
