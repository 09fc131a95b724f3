/// The exit statuses scripts can rely on (sysexits.h values where one fits).
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// The daemon refused the request (its error name and message are on stderr).
    case refused = 1
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The daemon is not running and cannot be activated (EX_UNAVAILABLE).
    case unavailable = 69
    /// A bug or an unexpected failure inside snapsizectl (EX_SOFTWARE).
    case internalError = 70
    /// Interrupted by Ctrl-C (SIGINT) during `drag`, `adjust` or `watch`... after the preview was cancelled.
    case interrupted = 130
}

/// A usage mistake, shown with the command's usage line; exits 64.
public struct UsageError: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// A failure while running a command, with the exit status it means.
public struct CommandFailure: Error, Sendable {
    public let code: ExitCode
    public let message: String
    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
