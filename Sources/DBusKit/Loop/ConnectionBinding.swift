internal import CDBus
#if canImport(Glibc)
    import Glibc
#endif

/// What the event loop knows about one added connection: libdbus's watches and timeouts.
///
/// libdbus tells us which file descriptors to poll (`DBusWatch`, read and write separately, each
/// enabled or not) and which timers to run (`DBusTimeout`, e.g. pending-call timeouts). Entries are
/// classes so a snapshot taken before handling can see that a callback removed them meanwhile.
final class ConnectionBinding {
    let connection: Connection
    var watches: [WatchEntry] = []
    var timeouts: [TimeoutEntry] = []
    /// The loop's clock, for the deadlines of libdbus timeouts.
    let time: TimeSource

    init(_ connection: Connection, time: TimeSource) {
        self.connection = connection
        self.time = time
    }

    /// Hands our callbacks to libdbus; it immediately reports the watches and timeouts it has.
    func attach() {
        let raw = connection.raw
        checkMemory(
            dbus_connection_set_watch_functions(
                raw, addWatch, removeWatch, toggleWatch,
                Unmanaged.passRetained(self).toOpaque(), releaseBinding),
            "dbus_connection_set_watch_functions")
        checkMemory(
            dbus_connection_set_timeout_functions(
                raw, addTimeout, removeTimeout, toggleTimeout,
                Unmanaged.passRetained(self).toOpaque(), releaseBinding),
            "dbus_connection_set_timeout_functions")
    }

    /// Takes the callbacks back; libdbus calls `remove` for every watch and timeout first.
    func detach() {
        let raw = connection.raw
        _ = dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        _ = dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        for watch in watches { watch.isValid = false }
        for timeout in timeouts { timeout.isValid = false }
        watches = []
        timeouts = []
    }

    /// Whether the loop has stopped reading from this connection and dispatching it (the outbox's
    /// backpressure: `Outbox.afterRound`).
    var paused: Bool { connection.outbox.pausesReading }

    /// Whether the last `dispatchAll` stopped at `OutboxLimits.messagesPerRound` with messages left.
    private(set) var moreQueued = false

    /// Dispatches what libdbus has queued, `OutboxLimits.messagesPerRound` at most, and nothing
    /// while paused.
    /// NEED_MEMORY ends the round instead of spinning.
    func dispatchAll() {
        moreQueued = false
        guard !paused else { return }
        var status = dbus_connection_get_dispatch_status(connection.raw)
        var dispatched = 0
        let limit = connection.outbox.limits.messagesPerRound
        while status == DBUS_DISPATCH_DATA_REMAINS {
            if dispatched == limit {
                moreQueued = true
                return
            }
            status = dbus_connection_dispatch(connection.raw)
            dispatched += 1
        }
    }
}

final class WatchEntry {
    let raw: OpaquePointer
    let fd: Int32
    let flags: UInt32
    var enabled: Bool
    var isValid = true
    /// Set after POLLHUP/POLLERR was handed to libdbus: never poll this fd again, so a dead
    /// socket cannot make poll(2) return immediately forever.
    var hungUp = false

    init(_ raw: OpaquePointer) {
        self.raw = raw
        fd = dbus_watch_get_unix_fd(raw)
        flags = dbus_watch_get_flags(raw)
        enabled = dbus_watch_get_enabled(raw) != 0
    }

    var isReadWatch: Bool { flags & CDBUS_WATCH_READABLE != 0 }

    var pollEvents: Int16 {
        var events: Int16 = 0
        if flags & CDBUS_WATCH_READABLE != 0 { events |= Int16(POLLIN) }
        if flags & CDBUS_WATCH_WRITABLE != 0 { events |= Int16(POLLOUT) }
        return events
    }

    /// Hands poll's `revents` to libdbus. The corresponding C function is `dbus_watch_handle`.
    func handle(_ revents: Int16) {
        var flags: UInt32 = 0
        if revents & Int16(POLLIN) != 0 { flags |= CDBUS_WATCH_READABLE }
        if revents & Int16(POLLOUT) != 0 { flags |= CDBUS_WATCH_WRITABLE }
        if revents & Int16(POLLERR) != 0 { flags |= CDBUS_WATCH_ERROR }
        if revents & Int16(POLLHUP) != 0 { flags |= CDBUS_WATCH_HANGUP }
        if revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { hungUp = true }
        guard flags != 0 else { return }
        _ = dbus_watch_handle(raw, flags)  // FALSE = OOM; libdbus retries on the next readiness
    }
}

final class TimeoutEntry {
    let raw: OpaquePointer
    var enabled: Bool
    var isValid = true
    var deadline: Double

    init(_ raw: OpaquePointer, now: Double) {
        self.raw = raw
        enabled = dbus_timeout_get_enabled(raw) != 0
        deadline = now + Double(dbus_timeout_get_interval(raw)) / 1000
    }

    /// libdbus timeouts repeat every interval until disabled or removed.
    func rearm(now: Double) {
        enabled = dbus_timeout_get_enabled(raw) != 0
        deadline = now + Double(dbus_timeout_get_interval(raw)) / 1000
    }
}

// MARK: - Trampolines (one per callback kind; `data` is a retained ConnectionBinding)

private func binding(_ data: UnsafeMutableRawPointer?) -> ConnectionBinding? {
    data.map { Unmanaged<ConnectionBinding>.fromOpaque($0).takeUnretainedValue() }
}

private let addWatch: DBusAddWatchFunction = { watch, data in
    guard let watch, let binding = binding(data) else { return 0 }
    binding.watches.append(WatchEntry(watch))
    return 1
}

private let removeWatch: DBusRemoveWatchFunction = { watch, data in
    guard let binding = binding(data) else { return }
    binding.watches.removeAll { entry in
        guard entry.raw == watch else { return false }
        entry.isValid = false
        return true
    }
}

private let toggleWatch: DBusWatchToggledFunction = { watch, data in
    guard let watch, let binding = binding(data) else { return }
    for entry in binding.watches where entry.raw == watch {
        entry.enabled = dbus_watch_get_enabled(watch) != 0
    }
}

private let addTimeout: DBusAddTimeoutFunction = { timeout, data in
    guard let timeout, let binding = binding(data) else { return 0 }
    binding.timeouts.append(TimeoutEntry(timeout, now: binding.time.now()))
    return 1
}

private let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in
    guard let binding = binding(data) else { return }
    binding.timeouts.removeAll { entry in
        guard entry.raw == timeout else { return false }
        entry.isValid = false
        return true
    }
}

private let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in
    guard let timeout, let binding = binding(data) else { return }
    for entry in binding.timeouts where entry.raw == timeout { entry.rearm(now: binding.time.now()) }
}

private let releaseBinding: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<ConnectionBinding>.fromOpaque(data).release()
}
