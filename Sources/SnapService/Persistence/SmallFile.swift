import Glibc
import SystemCalls

/// What reading a small file (the config file, the history file; /proc/<pid>/cmdline as bytes) found.
enum SmallFile: Equatable {
    case missing
    case text(String)
    /// The file exists but cannot be used; the sentence says why.
    case unusable(String)

    /// Reads `path` if it is a regular file of at most `maximumBytes` of UTF-8. Symbolic links are
    /// followed only when `followLinks` is true (a state file is always ours, never a link).
    static func read(_ path: String, maximumBytes: Int, followLinks: Bool) -> SmallFile {
        switch load(path, maximumBytes: maximumBytes, followLinks: followLinks) {
        case .missing: return .missing
        case .unusable(let reason): return .unusable(reason)
        case .bytes(let bytes):
            guard let text = String(validating: bytes, as: UTF8.self), !text.contains("\0") else {
                return .unusable("it is not text (it holds bytes that are not UTF-8)")
            }
            return .text(text)
        }
    }

    /// What `load` found: `read`'s answers, the file's bytes as they are.
    enum Loaded: Equatable {
        case missing
        case bytes([UInt8])
        case unusable(String)
    }

    /// `read` without the check that the bytes are text (the history file is not).
    static func load(_ path: String, maximumBytes: Int, followLinks: Bool) -> Loaded {
        var info = stat()
        let found = POSIX.status(path, &info, followLinks: followLinks)
        if found != 0 {
            return errno == ENOENT ? .missing : .unusable("cannot inspect it: \(describeErrno())")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return .unusable("it is a symbolic link, which is never followed")
        case S_IFDIR: return .unusable("it is a directory, not a file")
        default: return .unusable("it is not a regular file")
        }
        if info.st_size > maximumBytes {
            return .unusable(
                "it is \(info.st_size) bytes, more than the \(maximumBytes) such a file can hold")
        }
        guard let bytes = readBytes(path, maximumBytes: maximumBytes + 1, followLinks: followLinks)
        else {
            return .unusable("it cannot be read: \(describeErrno())")
        }
        if bytes.count > maximumBytes {
            return .unusable("it grew beyond \(maximumBytes) bytes while being read")
        }
        return .bytes(bytes)
    }
}

extension SmallFile {
    /// Up to `maximumBytes` of `path` (relative to the open folder `folder` when given), read to its
    /// end or to that limit; nil (errno set) when it cannot be opened or read. Also for files whose
    /// size stat cannot tell, such as /proc/<pid>/cmdline.
    static func readBytes(
        _ path: String, in folder: Int32 = AT_FDCWD, maximumBytes: Int, followLinks: Bool = true
    ) -> [UInt8]? {
        let fd = POSIX.open(at: folder, path, O_RDONLY | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return nil }
        defer { _ = POSIX.close(fd) }
        return POSIX.readAll(fd, limit: maximumBytes)
    }
}

extension SmallFile {
    /// Why `path` no longer names the open file `fd` as its writer left it (nil: it does), by the
    /// same device and inode (lstat, so a link in its place is another file) and, when given, the
    /// size the writer knows it has: something removed it, moved it or its folder away (`mv`,
    /// `cp --backup`, `rsync -b`, a renamed folder), put another file in its place, or cut it short.
    /// A write to it would be lost at the next start: the writer makes a new file instead.
    static func replacement(ofOpen fd: Int32, at path: String, size: Int? = nil) -> String? {
        var open = stat(), named = stat()
        guard POSIX.status(fd, &open) == 0, open.st_nlink > 0 else { return "it was removed" }
        guard POSIX.status(path, &named, followLinks: false) == 0 else {
            return errno == ENOENT
                ? "it, or its folder, was moved or removed"
                : "it cannot be inspected: \(describeErrno())"
        }
        guard named.st_dev == open.st_dev, named.st_ino == open.st_ino else {
            return "another file is in its place"
        }
        if let size, open.st_size != size {
            return
                "it is \(open.st_size) bytes, not the \(size) written: cut short or written by another program"
        }
        return nil
    }
}

func describeErrno(_ code: Int32 = errno) -> String {
    POSIX.describe(code)
}
