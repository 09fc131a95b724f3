#if canImport(Glibc)
    import Glibc
#endif

/// A unix file descriptor received in a message (D-Bus type `h`), such as the pidfd a bus gives
/// as a caller's `ProcessFD` (`GetConnectionCredentials`, dbus-daemon 1.15.x and later). Reading a
/// message duplicates each descriptor it carries into one of these, which owns it: it is closed
/// when the last reference goes, so a value dropped unread, or a body that failed half-way, leaks
/// none. Use `descriptor` only while holding the `UnixFD`.
///
/// DBusKit receives descriptors but does not send them: a value holding one is refused as an
/// argument (`validationProblem`), so no kept message template can hold one either.
public final class UnixFD: Equatable, Hashable, Sendable {
    /// The descriptor, open (close-on-exec) for as long as this object lives; -1 when it could not be duplicated.
    public let descriptor: Int32

    init(adopting descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The same object: two open descriptors of one process never share a number.
    public static func == (a: UnixFD, b: UnixFD) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
