import DBusKit
import Foundation
import SizeSelectorContract

/// Starts the built `snapsized` with `arguments` and `environment`, and returns once it owns
/// org.snapsize.SizeSelector1 on the bus at `busAddress` (or throws with its stderr when it exits
/// or does not get there within `timeout` seconds). Stopped like any ChildProcess, by PID.
public func startSnapsized(
    _ arguments: [String], environment: [String: String], busAddress: String,
    timeout: Double = 10, stderr: ChildProcess.Output = .file
) throws -> ChildProcess {
    guard let executable = productPath("snapsized") else {
        throw TestFailure("snapsized is not built in \(productsDirectory); run `swift build` first")
    }
    let daemon = try ChildProcess(executable, arguments, environment: environment, stderr: stderr)
    let probe = try Connection(address: busAddress)
    let owned = waitUntil(timeout: timeout, interval: 0.01) {
        (try? probe.nameHasOwner(SelectorBus.name.rawValue, timeoutMilliseconds: 2000)) == true
            || !daemon.isRunning
    }
    guard owned, daemon.isRunning else {
        let log = daemon.stderr
        daemon.terminate()
        throw TestFailure("snapsized did not take its name: \(log)")
    }
    return daemon
}
