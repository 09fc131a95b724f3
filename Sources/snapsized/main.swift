import Glibc
import SnapService

// Thin entry point: everything lives in SnapService so tests can reach it.
// No Foundation here: linking it (and its ICU data) costs resident memory and start-up time (the
// README's Performance section has the figures); the environment is read straight from `environ`.
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
