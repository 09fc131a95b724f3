import Testing
@testable import SnapCLI

/// doctor's advice for a daemon it cannot find, by how snapsize was installed.
@Suite("installation kinds")
struct InstallationTests {
    @Test("told from the program's path: the package, make install's PREFIX, a build tree")
    func detect() {
        #expect(Installation.detect(executable: "/usr/bin/snapsizectl", packaged: true) == .package)
        #expect(
            Installation.detect(executable: "/usr/bin/snapsizectl", packaged: false) == .prefix("/usr"))
        #expect(
            Installation.detect(executable: "/home/me/.local/bin/snapsizectl", packaged: true)
                == .prefix("/home/me/.local"))
        #expect(
            Installation.detect(executable: "/opt/snapsize/bin/snapsizectl", packaged: false)
                == .prefix("/opt/snapsize"))
        // Another scratch path (make stress's): told by snapsized beside it, in a folder that is not bin/.
        #expect(
            Installation.detect(
                executable: "/src/snapsize/.build-asan/x86_64-unknown-linux-gnu/debug/snapsizectl",
                packaged: false, daemonBeside: true)
                == .buildTree("/src/snapsize/.build-asan/x86_64-unknown-linux-gnu/debug"))
        #expect(
            Installation.detect(
                executable: "/opt/snapsize/bin/snapsizectl", packaged: false, daemonBeside: true)
                == .prefix("/opt/snapsize"))
        #expect(
            Installation.detect(
                executable: "/src/snapsize/.build/x86_64-unknown-linux-gnu/release/snapsizectl",
                packaged: true)
                == .buildTree("/src/snapsize/.build/x86_64-unknown-linux-gnu/release"))
    }

    @Test("each kind's fix names its own way of installing, never another's")
    func fixes() {
        let package = Installation.package.daemonFix(home: "/home/me")
        #expect(
            package.contains("sudo apt install --reinstall snapsize")
                && package.contains("/usr/share/dbus-1/services"))
        #expect(!package.contains("make install"))
        let local = Installation.prefix("/home/me/.local").daemonFix(home: "/home/me")
        #expect(
            local.contains("/home/me/.local/bin/snapsized &")
                && local.contains("make install PREFIX=/home/me/.local"))
        #expect(
            local.contains("/home/me/.local/share/dbus-1/services") && !local.contains("XDG_DATA_DIRS")
                && !local.contains("apt"))
        let opt = Installation.prefix("/opt/snapsize").daemonFix(home: "/home/me")
        #expect(
            opt.contains("make install PREFIX=/opt/snapsize")
                && opt.contains("/opt/snapsize/share is in XDG_DATA_DIRS"))
        let tree = Installation.buildTree("/src/.build/release").daemonFix(home: "/home/me")
        #expect(
            tree.hasPrefix("start it from this build (/src/.build/release/snapsized &)")
                && !tree.contains("apt"))
    }
}
