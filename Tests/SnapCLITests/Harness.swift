@testable import SnapCLI

/// Runs `snapsizectl` in-process and collects what it printed.
final class Captured {
    var out = ""
    var err = ""
}

func runTool(_ arguments: [String], environment: [String: String] = [:]) -> (
    status: Int32, out: String, err: String
) {
    let captured = Captured()
    let console = Console(out: { captured.out += $0 }, err: { captured.err += $0 })
    let status = Tool.main(
        arguments, context: CommandContext(console: console, environment: environment))
    return (status, captured.out, captured.err)
}
