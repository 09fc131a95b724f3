#if canImport(Glibc)
import Glibc
#endif

/// The process's environment as a dictionary, read straight from `environ`, so that the executables
/// need no Foundation (its ICU data alone costs ~10 MiB of RSS and ~10 ms of start-up; make bench).
public func processEnvironment() -> [String: String] {
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
