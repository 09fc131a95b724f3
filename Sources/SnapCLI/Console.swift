#if canImport(Glibc)
    import Glibc
#endif
import SnapTexts
import SystemCalls

/// Where a command writes: data to `out`, messages to `err`. Tests pass closures that collect text.
public struct Console {
    public var out: (String) -> Void
    public var err: (String) -> Void
    /// True when stdout is a terminal (enables Unicode and colour in `show`).
    public var isTerminal: Bool

    public init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, isTerminal: Bool = false
    ) {
        self.out = out
        self.err = err
        self.isTerminal = isTerminal
    }

    /// The process's own stdout and stderr, unbuffered per line.
    public static func standard() -> Console {
        Console(out: { writeAll(1, $0) }, err: { writeAll(2, $0) }, isTerminal: isatty(1) == 1)
    }

    /// A line of output or of a message: whatever in it came from the daemon, a client's command
    /// line or a file is shown, never obeyed (`Texts.printable`). (`out` and `err` write as given:
    /// help texts, and `show`'s colours, which make their own parts printable.)
    public func line(_ text: String) { out(Texts.printable(text, keepingLineBreaks: true) + "\n") }
    public func errorLine(_ text: String) { err(Texts.printable(text, keepingLineBreaks: true) + "\n") }
}

private func writeAll(_ fd: Int32, _ text: String) {
    _ = POSIX.writeAll(fd, text)  // on failure stdout is closed (e.g. piped into `head`): nothing useful left to do
}
