import Foundation
import SnapService

// Thin entry point: everything lives in SnapService so tests can reach it.
exit(Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()),
                 environment: ProcessInfo.processInfo.environment))
