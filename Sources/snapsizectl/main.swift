import Glibc
import SnapCLI
import SystemCalls

// Thin entry point: everything lives in SnapCLI so tests can drive it in-process. No Foundation, so
// that the statically linked binary stays small (see processEnvironment). The context is a global,
// which is never destroyed: the process exits with it (a key press does not pay for freeing the
// environment's strings one by one).
let context = CommandContext(console: .standard(), environment: processEnvironment())
exit(Tool.main(processArguments(), context: context))
