import Glibc
import SnapCore
import SystemCalls

/// Keeps the committed size on disk so that an acknowledged commit survives `kill -9`.
///
/// The file holds two slots (`StateSlots`), each in its own block. A commit writes the older slot
/// and flushes it with `fdatasync` before the reply: one write, where replacing a file takes a
/// temporary file, fsync, rename and an fsync of the folder. At start the valid slot with the higher sequence number is the saved size; a slot
/// torn by a crash mid-write fails its checksum and the other one, the last acknowledged size, is
/// used. A file whose slots are both bad is kept aside, as is any other file that is not ours, and
/// one in a newer format version than this code reads.
///
/// The file is created whole (temporary file, fsync, rename, fsync of the folder: once), with mode
/// 0600, and is never reached through a symbolic link. A state file in the old one-line format
/// (`size=60`) is read once and rewritten in the new one.
public final class StateStore {
    public let path: String
    private let folder: String
    private let temporary: String
    /// The open state file once it is known to be ours (after `load` or the first save), else -1.
    private var fd: Int32 = -1
    /// The slot holding the newest valid record, and its sequence number.
    private var newest: Int?
    private var sequence: UInt64 = 0

    public init(path: String) {
        self.path = path
        folder = StateStore.folder(of: path)
        temporary = "\(path).tmp-\(getpid())"
    }

    deinit { if fd >= 0 { _ = POSIX.close(fd) } }

    /// What `load` found.
    public enum Loaded: Equatable, Sendable {
        /// No file yet: start from the initial size.
        case missing
        /// A saved size (not necessarily one of today's sizes; the caller snaps it).
        case size(Int)
        /// The file could not be used; it was moved to `movedTo` (nil if even that failed).
        case unusable(reason: String, movedTo: String?)
    }

    public func load() -> Loaded {
        var info = stat()
        if POSIX.status(path, &info, followLinks: false) != 0 {
            return errno == ENOENT ? .missing : moveAside("cannot inspect it: \(describeErrno())")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return moveAside("it is a symbolic link, which is never followed")
        case S_IFDIR: return moveAside("it is a directory, not a file")
        default: return moveAside("it is not a regular file")
        }
        if info.st_size > StateSlots.fileSize {
            return moveAside(
                "it is \(info.st_size) bytes, more than the \(StateSlots.fileSize) a state file holds")
        }
        let opened = POSIX.open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard opened >= 0 else { return moveAside("it cannot be opened: \(describeErrno())") }
        guard let bytes = POSIX.readAll(opened, limit: StateSlots.fileSize) else {
            let problem = "it cannot be read: \(describeErrno())"
            _ = POSIX.close(opened)
            return moveAside(problem)
        }
        if StateSlots.hasMagic(bytes) {
            if let version = StateSlots.newerVersion(in: bytes) {
                _ = POSIX.close(opened)
                return moveAside(
                    "it is in state format version \(version), and this snapsize reads only up to version "
                        + "\(StateSlots.formatVersion) (a newer snapsize wrote it)")
            }
            let slots = StateSlots.slots(in: bytes)
            guard
                let best = slots.indices.filter({ slots[$0] != nil }).max(by: {
                    slots[$0]!.sequence < slots[$1]!.sequence
                })
            else {
                _ = POSIX.close(opened)
                return moveAside("neither of its two slots holds a valid record")
            }
            // Ours: kept open for the commits to come, 0600 even if something changed the mode.
            if info.st_mode & 0o777 != 0o600 { _ = POSIX.fchmod(opened, 0o600) }
            fd = opened
            newest = best
            sequence = slots[best]!.sequence
            return .size(slots[best]!.size)
        }
        _ = POSIX.close(opened)
        // The old format: one line `size=N`, read once and rewritten as slots.
        guard let text = String(validating: bytes, as: UTF8.self), !text.contains("\0") else {
            return moveAside("it is not text (it holds bytes that are not UTF-8)")
        }
        guard let size = StateStore.parse(text) else {
            return moveAside("it does not hold a line 'size=<whole number>'")
        }
        if let problem = create(size: size) {
            log("could not rewrite the state file \(path) in the two-slot format: \(problem)")
        }
        return .size(size)
    }

    /// The size the state file at `path` holds, read without changing anything; nil when there is
    /// none, or nothing usable (for tests: `load` is what the daemon uses).
    @_spi(Testing) public static func peek(_ path: String) -> Int? {
        let fd = POSIX.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { _ = POSIX.close(fd) }
        guard let bytes = POSIX.readAll(fd, limit: StateSlots.fileSize) else { return nil }
        if StateSlots.hasMagic(bytes) {
            if StateSlots.newerVersion(in: bytes) != nil { return nil }
            return StateSlots.slots(in: bytes).compactMap { $0 }.max { $0.sequence < $1.sequence }?.size
        }
        return String(validating: bytes, as: UTF8.self).flatMap(parse)
    }

    /// The old format's reader: `size=<integer>` and nothing else but blank lines.
    static func parse(_ text: String) -> Int? {
        var size: Int?
        for line in text.split(separator: "\n") {
            let trimmed = line.filter { !$0.isWhitespace }
            if trimmed.isEmpty { continue }
            guard trimmed.hasPrefix("size="), size == nil, let value = Int(trimmed.dropFirst(5)) else {
                return nil
            }
            size = value
        }
        return size
    }

    /// Runs when saving starts to fail, or works again (nil): not on every commit.
    public var onProblemChange: ((String?) -> Void)?
    private var lastProblem: String?

    /// Saves `size` durably; returns a sentence describing the failure, or nil on success.
    public func save(size: Int) -> String? {
        let problem = write(size: size)
        if problem != lastProblem {
            lastProblem = problem
            onProblemChange?(problem)
        }
        return problem
    }

    /// Why nothing could be saved at `path`, as far as can be told without writing (at start, for
    /// `StateSaving`): nil when the file is open (it was read) or the folder, or the nearest one of
    /// its parents that exists (the others are made), takes new files.
    public func placeProblem() -> String? {
        guard fd < 0 else { return nil }
        var candidate = folder
        while true {
            var info = stat()
            if POSIX.status(candidate, &info, followLinks: true) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    return "\(candidate) exists but is not a folder"
                }
                guard POSIX.access(candidate, W_OK | X_OK) == 0 else {
                    return "cannot create files in \(candidate): \(describeErrno())"
                }
                return nil
            }
            guard errno == ENOENT || errno == ENOTDIR else {
                return "cannot inspect \(candidate): \(describeErrno())"
            }
            let parent = StateStore.folder(of: candidate)
            guard parent != candidate else { return nil }
            candidate = parent
        }
    }

    private func write(size: Int) -> String? {
        guard fd >= 0, let newest, stillNamed else { return create(size: size) }
        let target = 1 - newest
        let record = StateSlots.encode(StateSlots.Slot(sequence: sequence + 1, size: size))
        let offset = off_t(target * StateSlots.blockSize)
        let written = record.withUnsafeBytes { POSIX.pwrite(fd, $0.baseAddress, $0.count, offset) }
        var problem: String?
        if written != record.count {
            problem = "cannot write \(path): \(written < 0 ? describeErrno() : "short write")"
        } else if POSIX.fdatasync(fd) != 0 {
            problem = "cannot flush \(path) to disk: \(describeErrno())"
        }
        if let problem {
            // The refused size may be in the slot (in memory, or half on disk): blank the slot, so
            // that a restart finds the size that was saved, as the refusal said. Best effort.
            let blank = [UInt8](repeating: 0, count: StateSlots.recordSize)
            _ = blank.withUnsafeBytes { POSIX.pwrite(fd, $0.baseAddress, $0.count, offset) }
            _ = POSIX.fdatasync(fd)
            return problem
        }
        self.newest = target
        sequence += 1
        return nil
    }

    // MARK: Helpers

    /// Whether the open file is still the one `path` names (`SmallFile.replacement`): if not, a
    /// commit written to it would be lost at the next start, so a new file is made instead, and the
    /// log says so once.
    private var stillNamed: Bool {
        guard let reason = SmallFile.replacement(ofOpen: fd, at: path) else { return true }
        log(
            "the state file \(path) is no longer the file the daemon wrote (\(reason)); saving to a new one there"
        )
        return false
    }

    /// Makes a new state file holding `size` in slot 0 (slot 1 empty), whole or not at all:
    /// a temporary file, written, flushed, renamed over `path`, and the folder flushed.
    private func create(size: Int) -> String? {
        if fd >= 0 { _ = POSIX.close(fd); fd = -1 }
        var made = POSIX.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if made < 0 {
            if let problem = StateStore.makeFolders(folder) { return problem }
            made = POSIX.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard made >= 0 else { return "cannot create \(temporary): \(describeErrno())" }
        var bytes = [UInt8](repeating: 0, count: StateSlots.fileSize)
        let record = StateSlots.encode(StateSlots.Slot(sequence: sequence + 1, size: size))
        bytes.replaceSubrange(0..<record.count, with: record)
        var problem: String?
        if let code = bytes.withUnsafeBytes({ POSIX.writeAll(made, $0) }) {
            problem = "cannot write \(temporary): \(describeErrno(code))"
        }
        // Mode 0600 even when an older temporary file was reused or the umask took owner bits away.
        if problem == nil, POSIX.fchmod(made, 0o600) != 0 {
            problem = "cannot set the mode of \(temporary): \(describeErrno())"
        }
        if problem == nil, POSIX.fsync(made) != 0 {
            problem = "cannot flush \(temporary) to disk: \(describeErrno())"
        }
        if problem == nil, POSIX.rename(temporary, path) != 0 {
            problem = "cannot rename \(temporary) to \(path): \(describeErrno())"
        }
        if let problem {
            _ = POSIX.close(made)
            _ = POSIX.unlink(temporary)
            return problem
        }
        // The rename itself is durable only once the folder is flushed.
        let folderFD = POSIX.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 { _ = POSIX.fsync(folderFD); _ = POSIX.close(folderFD) }
        fd = made
        newest = 0
        sequence += 1
        return nil
    }

    /// Keeps a bad file for a person to look at and says why.
    private func moveAside(_ reason: String) -> Loaded {
        if let target = Self.keepAside(path) { return .unusable(reason: reason, movedTo: target) }
        return .unusable(reason: reason + "; moving it aside failed: \(describeErrno())", movedTo: nil)
    }

    /// Moves the file at `path` aside (never deletes it, never overwrites an earlier one) and
    /// returns where it went: `<path>.bad-<seconds>`, or `-2`, `-3`... when two bad files come within
    /// one second; nil (errno set) when it could not be moved.
    static func keepAside(_ path: String) -> String? {
        let stem = "\(path).bad-\(time(nil))"
        for number in 1...100 {
            let target = number == 1 ? stem : "\(stem)-\(number)"
            // link(2) refuses a name that exists, so no earlier copy can be replaced, even by a
            // second daemon starting at the same moment. A folder cannot be linked: it is renamed
            // once lstat finds the name free.
            if POSIX.link(path, target) == 0 {
                _ = POSIX.unlink(path)
                return target
            }
            if errno == EEXIST { continue }
            var info = stat()
            if POSIX.status(target, &info, followLinks: false) == 0 { continue }
            if POSIX.rename(path, target) == 0 { return target }
            break
        }
        return nil
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
        if POSIX.mkdir(folder, 0o700) != 0 && errno != EEXIST {
            return "cannot create \(folder): \(describeErrno())"
        }
        return nil
    }
}
