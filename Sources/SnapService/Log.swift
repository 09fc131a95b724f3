import Glibc

/// One line on stderr, prefixed with the program name (journald adds the time).
public func log(_ message: String) {
    var bytes = Array("snapsized: \(message)\n".utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        if written < 0 { if errno == EINTR { continue }; return }
        bytes = bytes.dropFirst(written)
    }
}
