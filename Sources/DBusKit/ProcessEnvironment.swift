#if canImport(Glibc)
import Glibc
#endif

/// The process's environment as a dictionary, read straight from `environ`, so that the executables
/// need no Foundation (its ICU data would dominate the daemon's memory and start-up; make bench).
public func processEnvironment() -> [String: String] {
    // Sized once: growing a dictionary entry by entry rehashes it at every doubling, the most of
    // this function's cost in a short-lived `snapsizectl` (make bench, key press).
    var count = 0
    while environ[count] != nil { count += 1 }
    var environment = [String: String](minimumCapacity: count)
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        // Searched as bytes: a search by Character breaks the whole text into graphemes, which is
        // slow and, for `=`, never needed (make bench: exec -> name owned).
        if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
            environment[String(text[..<equals])] = String(text[text.utf8.index(after: equals)...])
        }
        entry += 1
    }
    return environment
}
