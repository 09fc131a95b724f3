import CGtk
import GtkShim
import DBusKit
import SizeSelectorContract

/// The panel's connection to snapsized: GDBus on the session bus, on GTK's own main loop (replies and
/// signals are main-loop callbacks, so nothing blocks the window and nothing needs a thread). Names come
/// from SizeSelectorContract; bodies are read with its decoders (GVariantValue).
///
/// Every call goes out with auto-start, so the first one starts the daemon by D-Bus activation. A
/// preview lives on this one connection: if the panel dies mid-drag, the daemon's owner-left rule ends it.
@MainActor
final class DaemonLink {
    /// How long a call may wait for its reply: a daemon being activated gets the bus's own start time.
    static let callTimeoutMilliseconds: Int32 = 25_000

    /// What the link reports to the window.
    enum Event {
        /// A whole new state (GetAll): at start, and each time the daemon (re)appears on the bus.
        case state(SelectorState)
        /// A PropertiesChanged.
        case change(SelectorChange)
        /// The daemon left the bus (it stopped, or crashed): the window keeps the last state, dimmed.
        case vanished
        /// GetAll failed: the daemon is not running and could not be started.
        case unreachable(MethodError)
    }

    let connection: OpaquePointer
    /// This connection's unique name: a preview whose ChangedBy names it is the panel's own.
    let uniqueName: String
    private let report: (Event) -> Void
    /// Sees the connection's traffic in GDBus's worker thread, for `callAwaitingAnswer`.
    private let answers: OpaquePointer
    private var watch: guint = 0
    private var subscription: guint = 0

    /// Connects to the session bus, or to the bus at `address` (tests); throws the reason when it cannot.
    init(address: String? = nil, report: @escaping (Event) -> Void) throws(MethodError) {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard
            let connection = address.map({
                g_dbus_connection_new_for_address_sync($0, flags, nil, nil, &error)
            })
                ?? g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error)
        else {
            throw Self.methodError(error)
        }
        self.connection = connection
        uniqueName = String(cString: g_dbus_connection_get_unique_name(connection))
        answers = shim_answer_wait_new(connection, SelectorBus.path.rawValue)
        self.report = report
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Subscribes to PropertiesChanged, watches the daemon's name, and reads everything (GetAll).
    func start() {
        subscription = g_dbus_connection_signal_subscribe(
            connection, SelectorBus.name.rawValue, InterfaceName.properties.rawValue,
            "PropertiesChanged",
            SelectorBus.path.rawValue, SelectorBus.interface.rawValue, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, data in
                MainActor.assumeIsolated {
                    Unmanaged<DaemonLink>.fromOpaque(data!).takeUnretainedValue().changed(parameters)
                }
            }, context, nil)
        // The name watch sees a restart (vanished, then appeared): the new daemon is read again at once.
        watch = g_bus_watch_name_on_connection(
            connection, SelectorBus.name.rawValue, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, _, data in
                MainActor.assumeIsolated {
                    Unmanaged<DaemonLink>.fromOpaque(data!).takeUnretainedValue().readAll()
                }
            },
            { _, _, data in
                MainActor.assumeIsolated {
                    Unmanaged<DaemonLink>.fromOpaque(data!).takeUnretainedValue().vanished()
                }
            }, context, nil)
        readAll()
    }

    /// A PropertiesChanged's parameters: the interface, the changed properties, the invalidated ones.
    private func changed(_ parameters: OpaquePointer?) {
        let body = GVariantValue.body(parameters)
        guard body.count == 3, body[0].asString == SelectorBus.interface.rawValue,
            let changed = body[1].asStringDict
        else { return }
        report(.change(SelectorChange(changed: changed)))
    }

    /// The watch also reports "vanished" once at start when the daemon is not running yet; the GetAll
    /// that activates it follows, so that first report is not a stop.
    private var seenOwner = false

    private func vanished() {
        guard seenOwner else { return }
        report(.vanished)
    }

    /// A GetAll is on its way: the name watch's first "appeared" (at start, or once activation started
    /// the daemon) needs no second one.
    private var reading = false

    /// GetAll, which starts the daemon when it is not running.
    func readAll() {
        guard !reading else { return }
        reading = true
        call(InterfaceName.properties.rawValue, "GetAll", shim_tuple_s(SelectorBus.interface.rawValue)) {
            [weak self] result in
            guard let self else { return }
            reading = false
            switch result {
            case .success(let body):
                do throws(MethodError) {
                    let state = try SelectorState(getAll: body)
                    seenOwner = true
                    report(.state(state))
                } catch {
                    report(.unreachable(error))
                }
            case .failure(let error):
                report(.unreachable(error))
            }
        }
    }

    /// Calls a method of org.snapsize.SizeSelector1.
    func call(
        _ method: SelectorMethod, _ parameters: OpaquePointer? = nil,
        reply: @escaping (Result<[DBusValue], MethodError>) -> Void = { _ in }
    ) {
        call(SelectorBus.interface.rawValue, method.name, parameters, reply: reply)
    }

    /// Calls `method` as `call` does, then blocks until its answer has arrived on the connection, at
    /// most `limit` microseconds, and reports at once the PropertiesChanged the daemon sent before
    /// that answer, so that the window shows it before GTK's next frame. The reply and the signal are
    /// still delivered from the main loop afterwards (the signal a second time: a change applied twice
    /// is the same state). Nothing else runs on the main loop meanwhile.
    func callAwaitingAnswer(
        _ method: SelectorMethod, _ parameters: OpaquePointer?, within limit: Int,
        reply: @escaping (Result<[DBusValue], MethodError>) -> Void
    ) {
        // A closed connection sends nothing: no answer to wait for.
        guard g_dbus_connection_is_closed(connection) == 0 else {
            return call(method, parameters, reply: reply)
        }
        shim_answer_wait_arm(answers, method.name)
        call(method, parameters, reply: reply)
        var change: OpaquePointer?
        _ = shim_answer_wait(answers, limit, &change)
        if let change {
            changed(change)
            g_variant_unref(change)
        }
    }

    private final class PendingReply {
        let handler: (Result<[DBusValue], MethodError>) -> Void
        init(_ handler: @escaping (Result<[DBusValue], MethodError>) -> Void) { self.handler = handler }
    }

    private func call(
        _ interface: String, _ member: String, _ parameters: OpaquePointer?,
        reply: @escaping (Result<[DBusValue], MethodError>) -> Void
    ) {
        // One retain per call, released in its callback, which GIO runs exactly once.
        let pending = Unmanaged.passRetained(PendingReply(reply)).toOpaque()
        g_dbus_connection_call(
            connection, SelectorBus.name.rawValue, SelectorBus.path.rawValue, interface, member,
            parameters, nil, G_DBUS_CALL_FLAGS_NONE, Self.callTimeoutMilliseconds, nil,
            { source, result, data in
                MainActor.assumeIsolated {
                    let pending = Unmanaged<PendingReply>.fromOpaque(data!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    let connection = OpaquePointer(source)
                    if let body = g_dbus_connection_call_finish(connection, result, &error) {
                        defer { g_variant_unref(body) }
                        pending.handler(.success(GVariantValue.body(body)))
                    } else {
                        pending.handler(.failure(DaemonLink.methodError(error)))
                    }
                }
            }, pending)
    }

    /// A GError as the contract's error: the remote D-Bus error name and its message when the daemon or
    /// the bus answered with one; org.freedesktop.DBus.Error.Failed and GIO's message otherwise.
    static func methodError(_ error: UnsafeMutablePointer<GError>?) -> MethodError {
        guard let error else { return MethodError(.failed, "unknown error") }
        defer { g_error_free(error) }
        var name = ErrorName.failed
        if let remote = g_dbus_error_get_remote_error(error) {
            name = ErrorName(rawValue: String(cString: remote)) ?? .failed
            g_free(remote)
            _ = g_dbus_error_strip_remote_error(error)
        }
        return MethodError(name, String(cString: error.pointee.message))
    }
}
