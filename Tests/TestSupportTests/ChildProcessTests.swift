import Foundation
import Testing
import TestSupport

@Suite("TestSupport helpers")
struct ChildProcessTests {
    let environment = [
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"
    ]

    @Test("run captures status, stdout and stderr")
    func runCaptures() throws {
        let result = try run("sh", ["-c", "echo out; echo err >&2; exit 3"], environment: environment)
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")
    }

    @Test("run kills a child at its timeout and says so")
    func runTimeout() throws {
        let started = Date()
        let result = try run("sleep", ["30"], environment: environment, timeout: 0.3)
        #expect(result.status == -1)
        #expect(result.stderr.contains("killed after"))
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("SIGTERM reaches children started from Swift Testing")
    func terminate() throws {
        let child = try ChildProcess("sleep", ["30"], environment: environment)
        #expect(child.isRunning)
        // A child that ignored SIGTERM would be SIGKILLed after the 5 s and say 128 + SIGKILL.
        #expect(child.terminate(timeout: 5) == 128 + SIGTERM, "SIGTERM was blocked in the child")
        #expect(!child.isRunning)
    }

    @Test("stdin from a pipe")
    func stdinPipe() throws {
        let child = try ChildProcess("cat", [], environment: environment, stdin: .pipe)
        child.writeToStdin("piped text")
        child.closeStdin()
        #expect(child.wait() == 0)
        #expect(child.stdout == "piped text")
    }

    @Test("the environment is exactly the one given")
    func environmentIsExplicit() throws {
        let result = try run(
            "sh", ["-c", "echo \"$ONLY_HERE:${HOME:-unset}\""],
            environment: environment.merging(["ONLY_HERE": "yes"]) { $1 })
        #expect(result.stdout == "yes:unset\n")
    }

    @Test("a private bus has its own environment and stops by PID")
    func privateBus() throws {
        let bus = try PrivateSessionBus(serviceDirectories: [FileManager.default.temporaryDirectory.path]
        )
        #expect(bus.address.hasPrefix("unix:"))
        #expect(bus.environment["DBUS_SESSION_BUS_ADDRESS"] == bus.address)
        #expect(bus.environment["NO_AT_BRIDGE"] == "1")
        #expect(bus.environment["DISPLAY"] == nil)
        #expect(bus.environment["AT_SPI_BUS_ADDRESS"] == nil)
        #expect(bus.environment["XDG_RUNTIME_DIR"]?.hasPrefix(bus.directory) == true)
        #expect(bus.environment["HOME"]?.hasPrefix(bus.directory) == true)
        let listed = try run(
            "gdbus",
            [
                "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.ListNames"
            ],
            environment: bus.environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(bus.daemon.isRunning)
        bus.stop()
        #expect(!bus.daemon.isRunning)
    }

    @Test("productsDirectory holds the test executable")
    func products() {
        let directory = productsDirectory
        #expect(FileManager.default.fileExists(atPath: directory))
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        #expect(contents.contains { $0.hasSuffix(".xctest") }, "\(directory): \(contents)")
    }
}
