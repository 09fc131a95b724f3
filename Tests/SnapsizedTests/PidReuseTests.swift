import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// A pid the bus named, given since to another process, is never taken for the client: in a private
/// pid namespace (Tests/Scripts/pid-reuse.sh) a client connects, hands its connection to a child and
/// exits, `sleep 600` gets its pid, and the child changes the size.
@Suite("A reused pid", .serialized)
struct PidReuseTests {
    /// Whether this system lets root make a pid namespace with its own /proc.
    static let namespacesWork: Bool = {
        guard getuid() == 0 else { return false }
        return
            (try? run(
                "/usr/bin/unshare", ["--pid", "--fork", "--mount-proc", "/bin/true"],
                environment: ["PATH": "/usr/bin:/bin"], timeout: 10))?.status == 0
    }()

    @Test(
        "the change is recorded with the pid and no command, never as the unrelated process that has the pid now",
        .enabled(if: getuid() == 0, "needs root, for a pid namespace (unshare --pid) and ns_last_pid"),
        .enabled(
            if: Self.namespacesWork,
            "unshare --pid --fork --mount-proc fails here (a chroot whose root is no mount point?)"))
    func reusedPid() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Scripts/pid-reuse.sh").path
        let result = try run(
            "/usr/bin/unshare",
            [
                "--pid", "--fork", "--mount-proc", "/bin/bash", script,
                try DaemonFixture.snapsized, productPath("snapsizectl")!, directory
            ],
            environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"], timeout: 60)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        print("pid reuse: " + result.stdout)
        let reused = try #require(
            lines.first { $0.hasPrefix("reused ") }, "\(result.stdout) \(result.stderr)")
        let words = reused.split(separator: " ")
        try #require(
            words.count == 4 && words[1] == words[3], "the pid was not handed out again: \(reused)")
        let status = try parseJSONObject(
            try #require(lines.first { $0.hasPrefix("{\"sizes\"") }, "\(result.stdout)"))
        let history = try parseJSONObject(
            try #require(lines.first { $0.hasPrefix("{\"seq\"") }, "\(result.stdout)"))
        #expect(status["selectedSize"] as? Int == 20, "the child's change was made")
        for (what, by) in [("ChangedBy", status["changedBy"]), ("the history", history["by"])] {
            let client = by as? [String: Any]
            // The pid as the bus gave it, or none when the bus took longer than the daemon waits
            // (ClientDirectory.lookUpTimeoutMilliseconds, seen under the whole suite's load).
            #expect(
                client?["pid"] as? Int == Int(words[1]) || client?["pid"] is NSNull,
                "\(what): \(String(describing: by))")
            #expect(
                client?["command"] is NSNull,
                "\(what) names the process that has the pid now: \(String(describing: by))")
        }
    }
}
