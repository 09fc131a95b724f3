import DBusKit

/// One line on stderr, prefixed with the program name (journald adds the time).
func log(_ message: String) {
    writeDiagnostic(message, program: "snapsized")
}
