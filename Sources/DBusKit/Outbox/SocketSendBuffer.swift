#if canImport(Glibc)
    import Glibc
#endif
internal import CDBus

/// The kernel's buffer for what a connection writes to its bus, made small while a sender is
/// refused (`Outbox.wantsSmallSocketBuffer`). Its default holds a great many replies, which a
/// flooded bus takes slowly: a reply given its turn (`ReplyLanes`) would still wait
/// behind all of them. Small only then: a small buffer means more writes, which cost CPU per call
/// with many calls in flight (both measured in Benchmarks/PERFORMANCE-LOG.md, "The outbox's limits").
struct SocketSendBuffer {
    private var fd: Int32 = -1
    /// What the kernel had (half what it reports: it doubles what is set).
    private var normal: Int32 = 0
    private(set) var isSmall = false

    init() {}

    init(_ connection: OpaquePointer) {
        var fd: Int32 = -1
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard dbus_connection_get_socket(connection, &fd) != 0, fd >= 0,
            getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0, size > 0
        else { return }
        self.fd = fd
        normal = size / 2
    }

    /// Makes the buffer `small` (`size` bytes asked for, which the kernel doubles), or as it was.
    mutating func fit(small: Bool, size: Int32) {
        guard small != isSmall, fd >= 0 else { return }
        var bytes = small ? size : normal
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        isSmall = small
    }
}
