#if canImport(Glibc)
    import Glibc
#endif

/// A terminal switched to raw-ish input (no line buffering, no echo, no signals from keys) until
/// `restore()`. Output processing stays on, so "\n" still starts a new line.
final class RawTerminal {
    private let fd: Int32
    private var saved = termios()
    private var active = false

    /// Nil when `fd` is not a terminal (then keys are read as they come, e.g. from a pipe).
    init?(fd: Int32) {
        guard isatty(fd) == 1, tcgetattr(fd, &saved) == 0 else { return nil }
        self.fd = fd
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &raw) == 0 else { return nil }
        active = true
    }

    func restore() {
        guard active else { return }
        active = false
        _ = tcsetattr(fd, TCSANOW, &saved)
    }

    deinit { restore() }
}

/// The keys `adjust` understands.
enum Key: Equatable {
    case left, right, up, down, home, end, enter, escape, quit, interrupt, endOfInput, other
}

/// Turns the bytes a terminal sends into keys. A lone ESC is ambiguous (Esc, or the start of an
/// arrow key's sequence), so it stays pending until more bytes come or `flushPendingEscape()`.
struct KeyDecoder {
    private var buffer: [UInt8] = []

    var hasPendingEscape: Bool { buffer == [0x1B] }

    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        buffer += bytes
        var keys: [Key] = []
        while let (key, used) = Self.decode(buffer) {
            buffer.removeFirst(used)
            keys.append(key)
        }
        return keys
    }

    mutating func flushPendingEscape() -> Key? {
        guard hasPendingEscape else { return nil }
        buffer = []
        return .escape
    }

    /// The first key in `bytes` and how many bytes it used; nil when more bytes are needed.
    static func decode(_ bytes: [UInt8]) -> (Key, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x0D, 0x0A: return (.enter, 1)
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return (.quit, 1)
        case 0x03: return (.interrupt, 1)
        case 0x04: return (.endOfInput, 1)
        case 0x1B: break
        default: return (.other, 1)
        }
        guard bytes.count >= 2 else { return nil }
        guard bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else { return (.escape, 1) }
        // CSI / SS3: parameters, then one final byte in 0x40...0x7E.
        var end = 2
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        let parameters = String(decoding: bytes[2..<end], as: UTF8.self)
        let key: Key
        switch (bytes[end], parameters) {
        case (UInt8(ascii: "A"), _): key = .up
        case (UInt8(ascii: "B"), _): key = .down
        case (UInt8(ascii: "C"), _): key = .right
        case (UInt8(ascii: "D"), _): key = .left
        case (UInt8(ascii: "H"), _): key = .home
        case (UInt8(ascii: "F"), _): key = .end
        case (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): key = .home
        case (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): key = .end
        default: key = .other
        }
        return (key, end + 1)
    }
}
