import DBusKit
import SnapSettings
import SnapTexts

/// The options every command that calls snapsized shares (`--timeout`), parsed once.
public struct CallOptions: Sendable {
    public static let defaultTimeout = 25.0
    public let timeoutSeconds: Double

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let text = arguments["timeout"] else {
            timeoutSeconds = Self.defaultTimeout
            return
        }
        let value: Double
        do {
            value = try OptionValues.number(text, option: "--timeout")
        } catch {
            throw UsageError(error.message)
        }
        guard value > 0, value <= 86_400 else {
            throw UsageError(
                tr("--timeout: give a number of seconds above 0 and at most 86400, not '%s'", text))
        }
        timeoutSeconds = value
    }

    var timeoutMilliseconds: Int32 { Int32(max(1, (timeoutSeconds * 1000).rounded(.up))) }

    /// Connects to snapsized's bus; a missing bus becomes exit 69.
    func connect(_ context: CommandContext) throws(CommandFailure) -> any SizeSelectorClient {
        do {
            return try context.makeClient(context.environment, timeoutMilliseconds)
        } catch {
            throw CommandFailure(error, timeoutSeconds: timeoutSeconds)
        }
    }

    /// Runs calls, turning a failed one into the documented exit status.
    func perform<T>(_ body: () throws(MethodError) -> T) throws(CommandFailure) -> T {
        do {
            return try body()
        } catch {
            throw CommandFailure(error, timeoutSeconds: timeoutSeconds)
        }
    }
}
