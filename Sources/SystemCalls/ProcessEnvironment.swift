import CPOSIX
#if canImport(Glibc)
    import Glibc
#endif

/// The process's environment as a dictionary, read straight from `environ`, so that the executables
/// need no Foundation (its ICU data would dominate the daemon's memory and start-up; make bench).
public func processEnvironment() -> [String: String] {
    environmentDictionary(cposix_environ())
}

/// `NAME=value` entries, up to the first nil, as a dictionary (split at each entry's first `=`).
@_spi(Testing) public func environmentDictionary(
    _ entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> [String: String] {
    // Sized once: growing a dictionary entry by entry rehashes it at every doubling.
    var count = 0
    while entries[count] != nil { count += 1 }
    var environment = [String: String](minimumCapacity: count)
    for index in 0..<count {
        guard let entry = entries[index] else { break }
        // The name and the value made straight from the C string's bytes, split at the first `=`
        // found by memchr: no String of the whole entry, and no search by Character, which would
        // break it into graphemes (a short-lived `snapsizectl` pays this for every variable).
        let length = strlen(entry)
        guard let equals = memchr(entry, Int32(UInt8(ascii: "=")), length) else { continue }
        let nameLength = UnsafeRawPointer(equals) - UnsafeRawPointer(entry)
        entry.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            let name = String(
                decoding: UnsafeBufferPointer(start: bytes, count: nameLength), as: UTF8.self)
            let value = String(
                decoding: UnsafeBufferPointer(
                    start: bytes + nameLength + 1, count: length - nameLength - 1),
                as: UTF8.self)
            environment[name] = value
        }
    }
    return environment
}
