import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds pass.
/// Returns whether it held. For tests that wait on another thread or process.
@discardableResult
public func waitUntil(timeout: Double, interval: Double = 0.01, _ condition: () throws -> Bool) rethrows
    -> Bool
{
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(useconds_t(max(interval, 0.001) * 1_000_000))
    }
}

/// The directory holding the package's built products (`.build/debug` or `.build/<triple>/debug`):
/// the folder of the running test executable. Tests use it to run `snapsized` and `snapsizectl`.
public var productsDirectory: String {
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return (executable as NSString).deletingLastPathComponent
    }
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return (bundle.bundlePath as NSString).deletingLastPathComponent
    }
    return FileManager.default.currentDirectoryPath + "/.build/debug"
}

/// The path of a built executable product, or nil when it has not been built.
public func productPath(_ name: String) -> String? {
    let path = productsDirectory + "/" + name
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}
