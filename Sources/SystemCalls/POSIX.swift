import CPOSIX
#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The POSIX file calls the package makes (persistence, config, diagnostics, CLI output), in one
/// place, in the manner of swift-system's `system_open`/`system_write`: each is the C call, and
/// in debug builds (where tests run) a test can make any of them fail with `withMockedCalls`.
/// A release build compiles the C call alone.
///
/// Each returns what the C function returns and leaves `errno` set the same way.
public enum POSIX {
    public static func open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        if let failure = intercept(.open) { return failure }
        return cposix_open(path, flags, mode)
    }

    /// `openat`: `path` relative to the open folder `folder` (no file is created: no mode).
    public static func open(at folder: Int32, _ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
        if let failure = intercept(.open) { return failure }
        return cposix_openat(folder, path, flags)
    }

    public static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        if let failure = intercept(.read) { return Int(failure) }
        return Glibc.read(fd, buffer, count)
    }

    public static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        if let failure = intercept(.write) { return Int(failure) }
        return Glibc.write(fd, buffer, limitWrite(count))
    }

    public static func fsync(_ fd: Int32) -> Int32 {
        if let failure = intercept(.fsync) { return failure }
        return Glibc.fsync(fd)
    }

    /// Writes at `offset` without moving the file position (one slot of the state file).
    public static func pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: off_t)
        -> Int
    {
        if let failure = intercept(.pwrite) { return Int(failure) }
        return Glibc.pwrite(fd, buffer, limitWrite(count), offset)
    }

    /// fsync without the metadata a later read does not need (a file whose size does not change).
    public static func fdatasync(_ fd: Int32) -> Int32 {
        if let failure = intercept(.fdatasync) { return failure }
        return Glibc.fdatasync(fd)
    }

    public static func fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 {
        if let failure = intercept(.fchmod) { return failure }
        return Glibc.fchmod(fd, mode)
    }

    public static func close(_ fd: Int32) -> Int32 {
        if let failure = intercept(.close) { return failure }
        return Glibc.close(fd)
    }

    public static func rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
        if let failure = intercept(.rename) { return failure }
        return Glibc.rename(from, to)
    }

    public static func link(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
        if let failure = intercept(.link) { return failure }
        return Glibc.link(from, to)
    }

    public static func unlink(_ path: UnsafePointer<CChar>) -> Int32 {
        if let failure = intercept(.unlink) { return failure }
        return Glibc.unlink(path)
    }

    public static func mkdir(_ path: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 {
        if let failure = intercept(.mkdir) { return failure }
        return Glibc.mkdir(path, mode)
    }

    /// faccessat(2) with the effective ids (`AT_EACCESS`): whether this process may, e.g., create
    /// files in a folder (`W_OK | X_OK`).
    public static func access(_ path: UnsafePointer<CChar>, _ mode: Int32) -> Int32 {
        if let failure = intercept(.access) { return failure }
        return faccessat(AT_FDCWD, path, mode, AT_EACCESS)
    }

    /// fstat(2).
    public static func status(_ fd: Int32, _ info: inout stat) -> Int32 {
        if let failure = intercept(.fstat) { return failure }
        return fstat(fd, &info)
    }

    /// stat(2), or lstat(2) when `followLinks` is false.
    public static func status(_ path: UnsafePointer<CChar>, _ info: inout stat, followLinks: Bool)
        -> Int32
    {
        if let failure = intercept(.stat) { return failure }
        return followLinks ? stat(path, &info) : lstat(path, &info)
    }

    /// Writes all of `buffer` to `fd`, again after a short write or EINTR. Returns nil, or the errno
    /// of the write that failed.
    public static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if cposix_errno() == EINTR { continue }
                return cposix_errno()
            }
            offset += written
        }
        return nil
    }

    /// Up to `limit` bytes from `fd`'s current position, read to its end or to that limit, retrying
    /// EINTR; nil (errno set) when reading fails.
    public static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        var total = 0
        while total < limit {
            let count = buffer[total...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if cposix_errno() == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            total += count
        }
        return Array(buffer[..<total])
    }

    /// Writes all of `text`'s UTF-8 to `fd` (see above).
    public static func writeAll(_ fd: Int32, _ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// `strerror` in English, whatever the locale: "No space left on device". The sentences it goes
    /// into are the daemon's log and its `StateSaving` words, both English and the same in every
    /// language; plain `strerror` follows LC_MESSAGES, in LC_CTYPE's charset, which is ASCII in
    /// a program that sets only LC_MESSAGES ("Permiss?o negada").
    public static func describe(_ code: Int32 = cposix_errno()) -> String {
        guard let english = cLocale else { return String(cString: strerror(code)) }
        return String(cString: strerror_l(code, english))
    }

    /// Made once, never freed; nil only when glibc could not allocate it.
    private nonisolated(unsafe) static let cLocale = newlocale(1 << LC_MESSAGES, "C", nil)

    // MARK: The seam

    /// -1 with `errno` set, when a test made this call fail; nil to make the real call.
    @inline(__always)
    private static func intercept(_ call: SystemCall) -> Int32? {
        #if ENABLE_MOCKING
            if let mock = MockedCalls.current, let code = mock.failure(for: call) {
                cposix_set_errno(code)
                return -1
            }
        #endif
        return nil
    }

    @inline(__always)
    private static func limitWrite(_ count: Int) -> Int {
        #if ENABLE_MOCKING
            if let limit = MockedCalls.current?.writeLimit { return min(count, limit) }
        #endif
        return count
    }
}
