internal import CDBus

/// Which tables answer for which object paths.
///
/// Kept in Swift rather than as one libdbus registration per path: a single fallback at `/` sends
/// every method call here, so unknown paths get UnknownObject (libdbus would say UnknownMethod)
/// and Introspect can list children that are exported anywhere below.
struct ExportRegistry {
    typealias Lookup = (ObjectPath) -> [InterfaceTable]?

    var objects: [ObjectPath: [InterfaceTable]] = [:] { didSet { last = nil } }
    var subtrees: [ObjectPath: Lookup] = [:] { didSet { last = nil } }
    /// The exact export found last: calls and signals go to the same object over and over, and
    /// comparing a path costs less than hashing it.
    private var last: (path: ObjectPath, tables: [InterfaceTable])?

    /// The tables for `path`: an exact export wins, then the deepest subtree containing it.
    mutating func tables(for path: ObjectPath) -> [InterfaceTable]? {
        if let last, last.path == path { return last.tables }
        if let tables = objects[path] {
            last = (path, tables)
            return tables
        }
        let owner = subtrees.keys.filter { path.isDescendant(of: $0) }.max {
            $0.rawValue.count < $1.rawValue.count
        }
        return owner.flatMap { subtrees[$0]?(path) }
    }

    /// Names of the direct children of `path` that lead to an exported object or subtree.
    func childNames(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for exported in Array(objects.keys) + Array(subtrees.keys)
        where exported.rawValue.hasPrefix(prefix) {
            if let first = exported.rawValue.dropFirst(prefix.count).split(separator: "/").first {
                names.insert(String(first))
            }
        }
        return names.sorted()
    }
}

/// Exporting objects.
extension Connection {
    /// Serves `interfaces` at `path`, plus Properties and Introspectable generated from them.
    /// Exporting the same path again replaces its tables.
    ///
    /// The connection keeps the tables (and so their handlers) until `unexport` or `close`; a handler
    /// that needs the connection should capture it `unowned` or `weak` to avoid a reference cycle.
    public func export(path: ObjectPath, interfaces: [InterfaceTable]) throws(MethodError) {
        try registerRootFallback()
        exports.objects[path] = interfaces
    }

    /// Serves every path at or below `path` whose tables `lookup` returns (nil means "no such object").
    ///
    /// For object trees that are too large or too dynamic to export one by one, such as the
    /// AT-SPI accessibles under `/org/a11y/atspi/accessible/`. An exact `export` takes precedence.
    public func exportSubtree(path: ObjectPath, lookup: @escaping (ObjectPath) -> [InterfaceTable]?)
        throws(MethodError)
    {
        try registerRootFallback()
        exports.subtrees[path] = lookup
    }

    /// Stops serving the object or subtree at `path`.
    public func unexport(path: ObjectPath) {
        exports.objects[path] = nil
        exports.subtrees[path] = nil
    }

    private func registerRootFallback() throws(MethodError) {
        guard !rootFallbackRegistered else { return }
        guard !isClosed else { throw MethodError(.disconnected, "Connection is closed") }
        var vtable = DBusObjectPathVTable(
            unregister_function: unregisterTrampoline, message_function: objectTrampoline,
            dbus_internal_pad1: nil, dbus_internal_pad2: nil,
            dbus_internal_pad3: nil, dbus_internal_pad4: nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let ok = try withDBusError { error in
            dbus_connection_try_register_fallback(raw, "/", &vtable, context, error)
        }
        if ok == 0 { throw MethodError(.failed, "dbus_connection_try_register_fallback failed") }
        rootFallbackRegistered = true
    }
}

/// The one trampoline for object-path messages; `userData` is the unretained `Connection`, which
/// unregisters the fallback in `close()` before it goes away.
private let objectTrampoline: DBusObjectPathMessageFunction = { _, message, userData in
    guard let message, let userData else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let connection = Unmanaged<Connection>.fromOpaque(userData).takeUnretainedValue()
    let wrapped = Message(retaining: message)
    guard wrapped.isMethodCall else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    connection.dispatchMethodCall(wrapped)
    return DBUS_HANDLER_RESULT_HANDLED
}

/// Nothing to release: the context is unretained.
private let unregisterTrampoline: DBusObjectPathUnregisterFunction = { _, _ in }
