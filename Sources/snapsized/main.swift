import DBusKit
import Glibc
import SnapService

// Thin entry point: everything lives in SnapService so tests can reach it.
// No Foundation here (see processEnvironment).
exit(Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: processEnvironment()))
