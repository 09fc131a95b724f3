/// Writes one line to stderr, "<program>: <message>", with plain write(2) calls (no stdio buffer
/// that a crash could lose, no Foundation). The daemon, its accessible side and DBusKit all report
/// through here, so journald sees every line in one format.
public func writeDiagnostic(_ message: String, program: String = programName) {
    _ = POSIX.writeAll(2, "\(program): \(message)\n")  // on failure stderr is gone: nowhere else to say it
}

/// The running program's file name ("snapsized"), for the prefix of diagnostic lines.
public let programName: String = processName()
