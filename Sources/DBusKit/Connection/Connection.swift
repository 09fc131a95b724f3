internal import CDBus
internal import SystemCalls
#if canImport(Glibc)
    import Glibc
#endif

/// A private connection to a message bus.
///
/// Not `Sendable`: one thread owns a connection, normally the thread running the `EventLoop`
/// it was added to. Private (not shared) connections are used so that closing one never affects
/// another part of the process, and exit-on-disconnect is off so a vanished bus becomes an
/// `onDisconnect` callback instead of `_exit()`.
public final class Connection {
    let raw: OpaquePointer

    /// The unique name the bus assigned to this connection, e.g. `:1.42`; empty until `register`
    /// has completed on a connection made with `unregistered(address:)`.
    public private(set) var uniqueName: String

    /// Called once, on the owning thread, when the connection drops (the bus went away).
    /// Not called after an explicit `close()`.
    public var onDisconnect: (() -> Void)?

    var isClosed = false
    var disconnectReported = false
    var exports = ExportRegistry()
    var rootFallbackRegistered = false
    var subscriptions: [SubscriptionToken: SignalSubscription] = [:]
    var nextSubscriptionID: UInt64 = 1
    /// The path and interface of the last method call (see `RecentString`).
    var recentPath = RecentString(), recentInterface = RecentString()
    /// Signals and replies already built once (see `MessageTemplates`).
    var templates = MessageTemplates()
    /// Method returns addressed to a caller, copies of `templates`' own: apart, so that a stream of
    /// new callers (each `snapsizectl` run is one) never pushes the signals out.
    var replyTemplates = MessageTemplates()
    /// Every reply and signal not yet handed to libdbus, and the rules that hold them (`Outbox`).
    var outbox = Outbox()
    /// The socket's send buffer, small while the outbox asks for it (`afterRound`).
    var sendBuffer = SocketSendBuffer()
    /// Whether what a group held on this connection goes out before what it held on the others
    /// (the accessibility bus: a screen reader waits on it to tell a person about the change,
    /// while a caller waits only for its reply). In the order the connections were added otherwise.
    public var releasesGroupFirst = false
    /// Whether the replies of an undone group are sent as its error (true) or as they were (false:
    /// for a peer that must never receive an error reply, which then reads the unchanged state).
    public var answersUndoneCallsWithErrors = true
    /// Runs for each call answered as it was (or with its `Method.undoneReply`) although its group
    /// was undone, on a connection that never answers with an error: the member and why (a log line).
    public var onUndoneReply: ((_ member: String, _ error: MethodError) -> Void)?
    /// The `undoneReply` of the method being dispatched (set by the dispatcher for `reply`).
    var routedUndoneReply: [DBusValue]?
    /// Set by `answerLater()` from the handler being run; the dispatcher takes it for `reply`.
    var answeringLater: LaterReply?

    /// Opens a private connection to the bus at `address` and registers with it (`Hello`), blocking
    /// until the bus answers. The corresponding C functions are `dbus_connection_open_private` and
    /// `dbus_bus_register`.
    public convenience init(address: String) throws(MethodError) {
        let opened = try Self.open(address)
        do throws(MethodError) {
            let ok = try withDBusError { error in dbus_bus_register(opened, error) }
            if ok == 0 { throw MethodError(.failed, "dbus_bus_register failed") }
        } catch {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw error
        }
        self.init(opened: opened)
    }

    /// Opens a private connection to the bus at `address`, sends `Hello` and, right behind it,
    /// RequestName for `name` (never queued, as `requestName`), and waits for both answers: one round
    /// trip to the bus where `init(address:)` and then `requestName` take two (make bench: exec ->
    /// name owned). The bus handles a connection's messages in order, so Hello still comes first;
    /// sd-bus sends them the same way. Throws when the connection or Hello fails; `owned` is whether
    /// this connection now owns `name`, or why the bus refused to say.
    @_spi(Testing) public static func registered(address: String, requesting name: BusName)
        throws(MethodError) -> (connection: Connection, owned: Result<Bool, MethodError>)
    {
        try BusRegistration(address: address).finish(requesting: name)
    }

    /// Opens a private connection to the bus at `address` WITHOUT registering: nothing here waits
    /// for the bus (a unix socket connects even to a dbus-daemon that is stopped), so a bus that
    /// accepts connections and never answers cannot block the caller. Add it to an event loop, then
    /// call `register(timeoutMilliseconds:_:)`.
    public static func unregistered(address: String) throws(MethodError) -> Connection {
        Connection(opened: try open(address))
    }

    static func open(_ address: String) throws(MethodError) -> OpaquePointer {
        _ = threadsInitialised
        let opened = try withDBusError { error in dbus_connection_open_private(address, error) }
        guard let opened else {
            throw MethodError(.failed, "dbus_connection_open_private returned NULL")
        }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        return opened
    }

    init(opened: OpaquePointer) {
        raw = opened
        uniqueName = string(dbus_bus_get_unique_name(opened)) ?? ""
        checkMemory(
            dbus_connection_add_filter(
                raw, filterTrampoline, Unmanaged.passUnretained(self).toOpaque(), nil),
            "dbus_connection_add_filter")
        sendBuffer = SocketSendBuffer(raw)
    }

    /// Registers a connection made with `unregistered(address:)`: sends `Hello` and returns at once.
    /// `done` runs later from the event loop with the unique name the bus assigned, or with the
    /// error (NoReply after `timeoutMilliseconds`, -1 for libdbus's 25 s, `Int32.max` for never;
    /// Disconnected when the bus went away first). Throws only when Hello could not be sent.
    /// The corresponding C function is `dbus_bus_set_unique_name` (what `dbus_bus_register` does
    /// with the reply).
    public func register(
        timeoutMilliseconds: Int32,
        _ done: @escaping (Result<String, MethodError>) -> Void
    ) throws(MethodError) {
        try callAsync(
            destination: BusName.bus.rawValue, path: .bus, interface: InterfaceName.bus.rawValue,
            member: "Hello", timeoutMilliseconds: timeoutMilliseconds
        ) { [weak self] reply in
            guard let self else { return }
            switch reply {
            case .success(let values):
                guard values.count == 1, let name = values[0].asString, !name.isEmpty else {
                    done(
                        .failure(
                            MethodError(
                                .failed,
                                "The bus answered Hello with signature '\(signature(of: values))'")))
                    return
                }
                checkMemory(dbus_bus_set_unique_name(self.raw, name), "dbus_bus_set_unique_name")
                self.uniqueName = name
                done(.success(name))
            case .failure(let error):
                done(.failure(error))
            }
        }
    }

    deinit {
        close()
        dbus_connection_unref(raw)
    }

    /// True until the bus goes away or `close()` is called.
    public var isConnected: Bool { !isClosed && dbus_connection_get_is_connected(raw) != 0 }

    /// Asks the bus for `name`; returns true when this connection is now (or already was) its primary owner.
    ///
    /// Never queues (`DBUS_NAME_FLAG_DO_NOT_QUEUE`): a name that is taken simply yields false.
    /// The corresponding C function is `dbus_bus_request_name`.
    @discardableResult
    public func requestName(_ name: BusName, replaceExisting: Bool = false) throws(MethodError) -> Bool {
        var flags = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE)
        if replaceExisting { flags |= UInt32(DBUS_NAME_FLAG_REPLACE_EXISTING) }
        let result = try withDBusError { error in dbus_bus_request_name(raw, name.rawValue, flags, error)
        }
        return result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
            || result == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER
    }

    /// Gives up `name`; returns true when this connection owned it. The corresponding C function is `dbus_bus_release_name`.
    @discardableResult
    public func releaseName(_ name: BusName) throws(MethodError) -> Bool {
        let result = try withDBusError { error in dbus_bus_release_name(raw, name.rawValue, error) }
        return result == DBUS_RELEASE_NAME_REPLY_RELEASED
    }

    /// Closes the connection. Exported objects and signal handlers are dropped; `onDisconnect` is not called.
    /// Idempotent; `deinit` calls it too.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        dbus_connection_remove_filter(raw, filterTrampoline, Unmanaged.passUnretained(self).toOpaque())
        if rootFallbackRegistered {
            _ = dbus_connection_unregister_object_path(raw, "/")
            rootFallbackRegistered = false
        }
        dbus_connection_close(raw)
        exports = ExportRegistry()
        subscriptions = [:]
        templates.removeAll()
        replyTemplates.removeAll()
        outbox.discardWaiting()
    }

    /// Writes out everything queued for sending, waiting at most `seconds`; true when all of it went.
    /// Bounded, unlike `dbus_connection_flush`, which waits forever for a peer that stopped reading
    /// (a bus stopped with SIGSTOP). Rarely needed: the event loop writes through its watches.
    /// Replies held for a client (`callAsync(…holdingRepliesTo:…)`) go too: a flush is the last
    /// word before closing. The corresponding C function is `dbus_connection_read_write`.
    @discardableResult
    public func flush(timeout seconds: Double = 5) -> Bool {
        if !isClosed { outbox.drainAll(to: wire) }
        let deadline = monotonicNow() + seconds
        while dbus_connection_has_messages_to_send(raw) != 0 {
            let left = deadline - monotonicNow()
            guard left > 0, dbus_connection_get_is_connected(raw) != 0 else { return false }
            _ = dbus_connection_read_write(raw, Int32(min(max(left * 1000, 1), 60_000).rounded(.up)))
        }
        return true
    }

    /// Reports the drop once. Called from the filter (Local.Disconnected) and by the event loop
    /// when it finds the connection no longer connected.
    func noteDisconnected() {
        guard !disconnectReported, !isClosed else { return }
        disconnectReported = true
        onDisconnect?()
    }

    /// Everything that passes the connection-wide filter: disconnection and subscribed signals.
    /// Always lets the message continue to the object tree.
    func filter(_ message: Message) {
        guard message.isSignal else { return }
        if message.interface == DBUS_INTERFACE_LOCAL && message.member == "Disconnected" {
            noteDisconnected()
            return
        }
        deliverSignal(message)
    }
}

/// The one trampoline for connection filters (`dbus_connection_add_filter`); `userData` is the
/// unretained `Connection`, which removes the filter before it goes away.
private let filterTrampoline: DBusHandleMessageFunction = { _, message, userData in
    // Only signals concern the filter: a method call is not even wrapped (one allocation less per call).
    guard let message, let userData, dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    let connection = Unmanaged<Connection>.fromOpaque(userData).takeUnretainedValue()
    connection.filter(Message(retaining: message))
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
