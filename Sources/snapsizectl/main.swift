import Glibc
import SnapCLI
import SystemCalls

// Thin entry point: everything lives in SnapCLI so tests can drive it in-process. No Foundation, so
// that the statically linked binary stays small (see processEnvironment).
let status = Tool.main(
    processArguments(),
    context: CommandContext(console: .standard(), environment: processEnvironment()))
exit(status)
