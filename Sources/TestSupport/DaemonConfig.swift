import Foundation
#if canImport(Glibc)
    import Glibc
#endif

extension DaemonFixture {
    /// The daemon's default config file on this bus's private home ($XDG_CONFIG_HOME/snapsize/config).
    public var configFile: String { bus.directory + "/home/.config/snapsize/config" }

    /// Writes `text` as the config file (before `start()`, or before a reload).
    public func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(
            atPath: (configFile as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try text.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    /// Writes `text` as the config file, sends the daemon SIGHUP, and waits (10 s at most) for the
    /// reload's log line; false if it never came.
    public func reload(config text: String) throws -> Bool {
        guard let daemon else { throw TestFailure("no daemon to reload") }
        try writeConfig(text)
        let before = daemon.stderr.components(separatedBy: "reload (SIGHUP)").count
        kill(daemon.pid, SIGHUP)
        return waitUntil(timeout: 10) {
            daemon.stderr.components(separatedBy: "reload (SIGHUP)").count > before
        }
    }
}
