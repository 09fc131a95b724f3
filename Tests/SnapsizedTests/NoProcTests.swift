import Foundation
import Testing
import TestSupport

/// Both programs read their arguments from the argv the C runtime passed in, not from /proc (issue 34,
/// item 5): run in a mount namespace whose /proc is an empty tmpfs, as in a chroot or a bare container.
@Suite("arguments without /proc")
struct NoProcTests {
    static let script = "mount -t tmpfs none /proc && test ! -e /proc/self && exec \"$@\""

    /// `unshare --mount` as root; otherwise inside a user namespace of one's own, where that is allowed.
    static func withoutProc(_ executable: String, _ arguments: [String]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let prefix = getuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        return try run(
            "/usr/bin/unshare", prefix + ["--", "/bin/sh", "-c", script, "sh", executable] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
    }

    /// Whether this machine lets the test make such a namespace at all.
    static var namespacesWork: Bool {
        (try? withoutProc("/bin/true", []))?.status == 0
    }

    @Test(
        "snapsizectl snap --x 51 answers, and snapsized --version prints its version, with an empty /proc",
        .enabled(
            if: namespacesWork,
            "unshare --mount with an empty /proc needs root or unprivileged user namespaces, which this machine refuses"
        ))
    func argumentsWithoutProc() throws {
        let snapsizectl = try #require(productPath("snapsizectl"), "snapsizectl is not built")
        let snapsized = try #require(productPath("snapsized"), "snapsized is not built")
        let snap = try Self.withoutProc(
            snapsizectl, ["snap", "--x", "51", "--sizes", "20,40", "--width", "100"])
        // The same words, with /proc, are the reference: the two runs must agree.
        let reference = try run(
            snapsizectl, ["snap", "--x", "51", "--sizes", "20,40", "--width", "100"],
            environment: ["LANG": "C.UTF-8"])
        #expect(reference.status == 0 && !reference.stdout.isEmpty, "\(reference)")
        #expect(snap.status == 0 && snap.stdout == reference.stdout && snap.stderr == "", "\(snap)")
        let version = try Self.withoutProc(snapsized, ["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("snapsized "), "\(version)")
    }
}
