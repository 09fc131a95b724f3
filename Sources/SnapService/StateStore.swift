import Glibc
import SnapCore
import SystemCalls

/// Keeps the committed size on disk so that an acknowledged commit survives `kill -9`.
///
/// The file holds one line, `size=60`. It is replaced atomically: a temporary file in the same
/// folder is written, fsynced and renamed over the old one, and the folder is fsynced, so a reader
/// (or a restart after a crash) sees the old file or the new one, never a half-written one.
public struct StateStore: Sendable {
    public let path: String
    /// The folder and the temporary file, worked out once: `save` runs on every commit.
    private let folder: String
    private let temporary: String
    /// The same paths as C strings, made once: a String passed to open() or rename() is copied
    /// into a new array on every call, and a commit makes several.
    private let pathC, folderC, temporaryC: ContiguousArray<CChar>

    public init(path: String) {
        self.path = path
        folder = StateStore.folder(of: path)
        temporary = "\(path).tmp-\(getpid())"
        pathC = path.utf8CString
        folderC = folder.utf8CString
        temporaryC = temporary.utf8CString
    }

    /// What `load` found.
    public enum Loaded: Equatable, Sendable {
        /// No file yet: start from the initial size.
        case missing
        /// A saved size (not necessarily one of today's sizes; the caller snaps it).
        case size(Int)
        /// The file could not be used; it was moved to `movedTo` (nil if even that failed).
        case unusable(reason: String, movedTo: String?)
    }

    /// The largest file we are willing to read; a state file is a dozen bytes.
    static let maximumBytes = 4096

    public func load() -> Loaded {
        switch TextFile.read(path, maximumBytes: StateStore.maximumBytes, followLinks: false) {
        case .missing:
            return .missing
        case .unusable(let reason):
            return moveAside(reason)
        case .text(let text):
            guard let size = StateStore.parse(text) else {
                return moveAside("it does not hold a line 'size=<whole number>'")
            }
            return .size(size)
        }
    }

    /// The one format reader: `size=<integer>` and nothing else but blank lines.
    static func parse(_ text: String) -> Int? {
        var size: Int?
        for line in text.split(separator: "\n") {
            let trimmed = line.filter { !$0.isWhitespace }
            if trimmed.isEmpty { continue }
            guard trimmed.hasPrefix("size="), size == nil, let value = Int(trimmed.dropFirst(5)) else { return nil }
            size = value
        }
        return size
    }

    /// Saves `size` durably; returns a sentence describing the failure, or nil on success.
    public func save(size: Int) -> String? {
        // The usual case costs one open: the folder is only checked (and made) when that fails,
        // and the mode only set when the file is not brand new: fewer system calls per commit.
        var (fd, fresh) = openTemporary()
        if fd < 0 {
            if let problem = StateStore.makeFolders(folder) { return problem }
            (fd, fresh) = openTemporary()
        }
        guard fd >= 0 else { return "cannot create \(temporary): \(describeErrno())" }
        if let code = POSIX.writeAll(fd, "size=\(size)\n") {
            return discardTemporary(fd, "cannot write \(temporary): \(describeErrno(code))")
        }
        // Mode 0600 even when an older temporary file with other bits was reused, or the umask
        // took owner bits away from a new one.
        if !fresh || StateStore.umaskTakesOwnerBits { _ = POSIX.fchmod(fd, 0o600) }
        if POSIX.fsync(fd) != 0 {
            return discardTemporary(fd, "cannot flush \(temporary) to disk: \(describeErrno())")
        }
        _ = POSIX.close(fd)
        if C.with(temporaryC, { from in C.with(pathC) { to in POSIX.rename(from, to) } }) != 0 {
            return discardTemporary(-1, "cannot rename \(temporary) to \(path): \(describeErrno())")
        }
        // The rename itself is durable only once the folder is flushed.
        let folderFD = C.with(folderC) { POSIX.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if folderFD >= 0 { _ = POSIX.fsync(folderFD); _ = POSIX.close(folderFD) }
        return nil
    }

    /// After a failed step: closes `fd` (unless -1), removes the temporary file, returns `problem`.
    private func discardTemporary(_ fd: Int32, _ problem: String) -> String {
        if fd >= 0 { _ = POSIX.close(fd) }
        _ = C.with(temporaryC) { POSIX.unlink($0) }
        return problem
    }

    // MARK: Helpers

    /// Opens the temporary file for writing; `fresh` when this call created it (mode 0600 minus the umask).
    private func openTemporary() -> (fd: Int32, fresh: Bool) {
        let created = C.with(temporaryC) { POSIX.open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        if created >= 0 || errno != EEXIST { return (created, true) }
        return (C.with(temporaryC) { POSIX.open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600) }, false)
    }

    /// Whether the process umask removes read or write for the owner (so a new file is not 0600).
    /// Read once, from /proc, so the umask is never changed, not even for a moment.
    static let umaskTakesOwnerBits: Bool = {
        guard case .text(let status) = TextFile.read("/proc/self/status", maximumBytes: 64 * 1024, followLinks: true),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
              let mask = Int(line.dropFirst(6).filter { !$0.isWhitespace }, radix: 8) else { return true }
        return mask & 0o600 != 0
    }()

    /// Keeps a bad file for a person to look at (never deletes it, never overwrites an earlier one)
    /// and says where it went: `state.bad-<seconds>`, or `state.bad-<seconds>-2`, `-3`... when two
    /// bad files come within one second.
    private func moveAside(_ reason: String) -> Loaded {
        let stem = "\(path).bad-\(time(nil))"
        for number in 1...100 {
            let target = number == 1 ? stem : "\(stem)-\(number)"
            // link(2) refuses a name that exists, so no earlier copy can be replaced, even by a
            // second daemon starting at the same moment. A folder cannot be linked: it is renamed
            // once lstat finds the name free.
            if POSIX.link(path, target) == 0 {
                _ = POSIX.unlink(path)
                return .unusable(reason: reason, movedTo: target)
            }
            if errno == EEXIST { continue }
            var info = stat()
            if POSIX.status(target, &info, followLinks: false) == 0 { continue }
            if POSIX.rename(path, target) == 0 { return .unusable(reason: reason, movedTo: target) }
            break
        }
        return .unusable(reason: reason + "; moving it aside failed: \(describeErrno())", movedTo: nil)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// `mkdir -p` with mode 0700 for the folders we create.
    static func makeFolders(_ folder: String) -> String? {
        var info = stat()
        if POSIX.status(folder, &info, followLinks: true) == 0 {
            return info.st_mode & S_IFMT == S_IFDIR ? nil : "\(folder) exists but is not a folder"
        }
        let parent = StateStore.folder(of: folder)
        if parent != folder, let problem = makeFolders(parent) { return problem }
        if POSIX.mkdir(folder, 0o700) != 0 && errno != EEXIST { return "cannot create \(folder): \(describeErrno())" }
        return nil
    }
}

/// `$XDG_STATE_HOME/snapsize/state`, with the XDG default `~/.local/state`.
public func defaultStatePath(environment: [String: String]) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/snapsize/state" }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/.local/state/snapsize/state"
}

/// `$XDG_CONFIG_HOME/snapsize/config`, with the XDG default `~/.config`.
public func defaultConfigPath(environment: [String: String]) -> String? {
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/snapsize/config" }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/.config/snapsize/config"
}

/// Runs `body` with a C string made by `String.utf8CString` (never empty: it ends in NUL).
private enum C {
    static func with<R>(_ string: ContiguousArray<CChar>, _ body: (UnsafePointer<CChar>) -> R) -> R {
        string.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
