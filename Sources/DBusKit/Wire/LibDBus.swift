internal import CDBus
#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

// The few places where DBusKit talks to libdbus about errors and memory, kept on one screen.

/// Runs `body` with an initialised `DBusError` and frees it afterwards; throws when libdbus set it.
///
/// Every libdbus call that reports failure through a `DBusError*` goes through here, so init and
/// free are always paired and the libdbus error name reaches the caller unchanged.
func withDBusError<R>(_ body: (UnsafeMutablePointer<DBusError>) -> R) throws(MethodError) -> R {
    var error = DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    let result = withUnsafeMutablePointer(to: &error) { body($0) }
    if dbus_error_is_set(&error) != 0 {
        let name = error.name.map { String(cString: $0) } ?? ErrorName.failed.rawValue
        let message = error.message.map { String(cString: $0) } ?? ""
        throw MethodError(ErrorName(unchecked: name), message)
    }
    return result
}

/// Traps because libdbus reported out-of-memory.
///
/// libdbus signals OOM by returning FALSE/NULL from allocating calls. There is no sensible recovery
/// for a desktop service, and continuing would break the "one reply per call" contract silently,
/// so this is the only trap DBusKit allows.
func outOfMemory(_ function: String) -> Never {
    fatalError("libdbus ran out of memory in \(function)")
}

/// Checks the `dbus_bool_t` result of an allocating libdbus call; FALSE there means out-of-memory.
@inline(__always)
func checkMemory(_ ok: dbus_bool_t, _ function: String = #function) {
    if ok == 0 { outOfMemory(function) }
}

/// Copies a libdbus-owned C string (which may point into a message) into a Swift string.
func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// Makes sure libdbus's internal locks are set up before any connection is shared between threads.
/// Since libdbus 1.7 this happens automatically; calling it again is cheap and documents the intent.
let threadsInitialised: Bool = {
    dbus_threads_init_default() != 0
}()
