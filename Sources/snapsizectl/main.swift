import Foundation
import SnapCLI

// Thin entry point: everything lives in SnapCLI so tests can drive it in-process.
let status = Tool.main(Array(CommandLine.arguments.dropFirst()),
                       context: CommandContext(console: .standard(), environment: ProcessInfo.processInfo.environment))
exit(status)
