#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Writes one line to stderr, "<program>: <message>", with plain write(2) calls (no stdio buffer
/// that a crash could lose, no Foundation). The daemon, its accessible side and DBusKit all report
/// through here, so journald sees every line in one format.
public func writeDiagnostic(_ message: String, program: String = programName) {
    var bytes = Array("\(program): \(message)\n".utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return  // stderr is gone; there is nowhere else to say it
        }
        bytes = bytes.dropFirst(written)
    }
}

/// The running program's file name ("snapsized"), for the prefix of diagnostic lines.
public let programName: String = {
    CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? "snapsize"
}()
