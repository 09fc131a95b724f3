import Glibc
import SnapService

// Thin entry point: everything lives in SnapService so tests can reach it.
// No Foundation here: linking it (and its ICU data) alone cost ~10 MiB of RSS and ~10 ms of
// start-up (make bench); the environment is read straight from `environ`.
func processEnvironment() -> [String: String] {
    var environment: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.firstIndex(of: "=") {
            environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        entry += 1
    }
    return environment
}

exit(Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: processEnvironment()))
