import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// A pid the bus named, given since to another process, is never taken for the client: in a private
/// pid namespace (Tests/Scripts/pid-reuse.sh) a client connects, hands its connection to a child and
/// exits, `sleep 600` gets its pid, and the child changes the size. Before it, a plain client's change
/// is recorded with its command. On this machine's bus (dbus-daemon 1.14: a pid only, checked by its
/// start time), and on Debian 13's (1.16, from the chroot `make test-orca48` builds), which gives the
/// caller's process as a pidfd (`ProcessFD`).
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

    /// The Debian 13 chroot (`SNAPSIZE_DESKTOP_ROOT`, else where `make test-orca48` builds it), when
    /// it is built and holds dbus-daemon.
    static let trixie: String? = {
        let root = DesktopRoot.path ?? "/var/tmp/snapsize-trixie"
        let ready =
            FileManager.default.fileExists(atPath: root + "/.snapsize-ready")
            && FileManager.default.isExecutableFile(atPath: root + "/usr/bin/dbus-daemon")
        return ready ? root : nil
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
        try Self.expectNamed(Self.scenario(directory))
    }

    @Test(
        "with a bus that gives the process as a pidfd: the command is recorded, a reused pid never names the stranger",
        .enabled(if: getuid() == 0, "needs root, for a pid namespace (unshare --pid) and chroot"),
        .enabled(
            if: Self.namespacesWork,
            "unshare --pid --fork --mount-proc fails here (a chroot whose root is no mount point?)"),
        .enabled(
            if: Self.trixie != nil,
            "needs the Debian 13 chroot for dbus-daemon 1.16 (make test-orca48 builds it)"),
        // "proc": the bus offers ProcessID too; "none": only the pidfd can tell the process.
        arguments: ["proc", "none"])
    func pidfdBus(_ proc: String) throws {
        let root = try #require(Self.trixie)
        // The bus's socket is in the chroot's /tmp, where the chroot's dbus-daemon can make it.
        var template = Array((root + "/tmp/snapsize-pidfd.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp", errno: errno) }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = try Self.scenario(directory, root: root, proc: proc)
        let credentials = try #require(lines.first { $0.hasPrefix("credentials ") }, "\(lines)")
        #expect(credentials.contains("\"ProcessFD\" h"), "the bus offers no pidfd: \(credentials)")
        #expect(credentials.contains("\"ProcessID\"") == (proc == "proc"), "\(credentials)")
        try Self.expectNamed(lines)
    }

    /// Runs Tests/Scripts/pid-reuse.sh in a new pid namespace; its output's lines.
    static func scenario(_ directory: String, root: String? = nil, proc: String = "proc") throws
        -> [String]
    {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Scripts/pid-reuse.sh").path
        let result = try run(
            "/usr/bin/unshare",
            [
                "--pid", "--fork", "--mount-proc", "/bin/bash", script,
                try DaemonFixture.snapsized, productPath("snapsizectl")!, directory
            ] + (root.map { [$0, proc] } ?? []),
            environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"], timeout: 60)
        print("pid reuse: " + result.stdout)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The plain client's change names it by its command; the child's, made after its parent's pid
    /// was given to `sleep 600`, never names `sleep` (the pid the bus gave, or none).
    static func expectNamed(_ lines: [String]) throws {
        let plain = try parseJSONObject(
            String(try #require(lines.first { $0.hasPrefix("plain ") }, "\(lines)").dropFirst(6)))
        let plainBy = plain["by"] as? [String: Any]
        #expect(plainBy?["command"] as? String == "snapsizectl set", "\(plain)")
        #expect((plainBy?["pid"] as? Int ?? 0) > 0, "\(plain)")

        let reused = try #require(lines.first { $0.hasPrefix("reused ") }, "\(lines)")
        let words = reused.split(separator: " ")
        try #require(
            words.count == 4 && words[1] == words[3], "the pid was not handed out again: \(reused)")
        let status = try parseJSONObject(
            try #require(lines.first { $0.hasPrefix("{\"sizes\"") }, "\(lines)"))
        let history = try parseJSONObject(
            try #require(lines.last { $0.hasPrefix("{\"seq\"") }, "\(lines)"))
        #expect(status["selectedSize"] as? Int == 20, "the child's change was made")
        for (what, by) in [("ChangedBy", status["changedBy"]), ("the history", history["by"])] {
            let client = by as? [String: Any]
            // The pid as the bus gave it, or none when the bus took longer than the daemon waits
            // (ClientDirectory.lookUpTimeoutMilliseconds, seen under the whole suite's load) or
            // could tell it only by a pidfd of a process gone.
            #expect(
                client?["pid"] as? Int == Int(words[1]) || client?["pid"] is NSNull,
                "\(what): \(String(describing: by))")
            // No command, or the command of the process that made the connection: the daemon asks
            // the bus about a client as it connects, so it may read it while that one still lives.
            #expect(
                client?["command"] is NSNull || client?["command"] as? String == "python3 client.py",
                "\(what) names the process that has the pid now: \(String(describing: by))")
        }
    }
}
