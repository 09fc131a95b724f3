import Foundation
import Testing
@_spi(Testing) import DBusKit
import TestSupport
@testable import SnapService

/// Start-up, persistence, stopping, activation: the daemon as the session runs it.
@Suite("Daemon life cycle")
struct DaemonLifecycleTests {
    @Test("a restart restores the committed size, saved 0600 before the reply")
    func restart() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(100)])
        // Saved before the reply: the file already says so now.
        #expect(savedSize(fixture.stateFile) == 100)
        let mode =
            try FileManager.default.attributesOfItem(atPath: fixture.stateFile)[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
        _ = fixture.daemon.map { kill($0.pid, SIGKILL) }
        fixture.stop()
        try fixture.start()
        #expect(try fixture.client().property("SelectedSize") == .int32(100))
    }

    @Test("a saved size that is no longer allowed is snapped to today's sizes")
    func resnap() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        try FileManager.default.createDirectory(
            atPath: (fixture.stateFile as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try "size=57\n".write(toFile: fixture.stateFile, atomically: true, encoding: .utf8)
        try fixture.start(["--sizes", "10,50,70"])
        #expect(try fixture.client().property("SelectedSize") == .int32(50))
        #expect(fixture.daemon?.stderr.contains("57") == true)
        // Read once in the old one-line format, and rewritten as slots.
        #expect(savedSize(fixture.stateFile) == 57)
    }

    @Test(
        "a corrupt state file is reported, kept aside, and the initial size used",
        arguments: [
            "size=sixty\n", "garbage", "\u{0}\u{1}\u{2}binary", "", "size=20\nsize=40\n"
        ])
    func corrupt(content: String) throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let folder = (fixture.stateFile as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try content.write(toFile: fixture.stateFile, atomically: true, encoding: .utf8)
        try fixture.start(["--initial", "80"])
        #expect(try fixture.client().property("SelectedSize") == .int32(80))
        let stderr = fixture.daemon?.stderr ?? ""
        #expect(stderr.contains("could not be used"), "stderr: \(stderr)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("state.bad-")
        }
        #expect(kept.count == 1)
        if let name = kept.first {
            #expect(try String(contentsOfFile: folder + "/" + name, encoding: .utf8) == content)
        }
        // And it saves again normally afterwards.
        _ = try fixture.client().call("Decrement")
        #expect(savedSize(fixture.stateFile) == 60)
    }

    @Test("--no-state neither reads nor writes a state file")
    func noState() throws {
        let fixture = try DaemonFixture(["--no-state"])
        _ = try fixture.client().call("Increment")
        #expect(!FileManager.default.fileExists(atPath: fixture.stateFile))
    }

    @Test(
        "invalid options stop start-up with one line and status 64",
        arguments: [
            ["--sizes", ""], ["--sizes", "60,20"], ["--sizes", "20,x"], ["--track-width", "20"],
            ["--layout", "spiral"],
            ["--initial", "big"], ["--bogus"], ["--preview-timeout", "-1"]
        ])
    func badOptions(arguments: [String]) throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let result = try fixture.tool(try DaemonFixture.snapsized, arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("snapsized: "))
    }

    @Test(
        "invalid options, with a session bus there, never take the name (snapsized connects before reading them)"
    )
    func badOptionsNeverOwnTheName() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let name = "org.snapsize.SizeSelector1"
        let watcher = try Connection(address: fixture.bus.address)
        watcher.addMatch(
            "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'")
        final class Seen { var owners: [String] = [] }
        let seen = Seen()
        watcher.onSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged") { signal in
            if signal.arguments.count == 3, let owner = signal.arguments[2].asString {
                seen.owners.append(owner)
            }
        }
        _ = try watcher.nameHasOwner(name)  // the match is in place
        let loop = EventLoop()
        loop.add(watcher)
        defer { loop.remove(watcher) }
        for arguments in [["--sizes", "20,x"], ["--config", fixture.bus.directory + "/missing.conf"]] {
            let result = try fixture.tool(try DaemonFixture.snapsized, arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            _ = try watcher.nameHasOwner(name)  // any NameOwnerChanged from the bus came before this answer
            loop.run(seconds: 0.05)
            #expect(seen.owners.isEmpty, "\(arguments): the name was owned by \(seen.owners)")
        }
        // The watch sees a daemon that does take the name.
        try fixture.start()
        #expect(
            waitUntil(timeout: 10) {
                loop.run(seconds: 0.05); return !seen.owners.isEmpty
            })
    }

    @Test("a config file supplies settings; flags win")
    func configFile() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let folder = fixture.bus.directory + "/home/.config/snapsize"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "sizes = 1, 2, 3\nlabel = Pen\ninitial = 3\n".write(
            toFile: folder + "/config", atomically: true, encoding: .utf8)
        try fixture.start(["--label", "Brush"])
        let client = try fixture.client()
        #expect(
            try client.property("Sizes")
                == .array(elementSignature: "i", [.int32(1), .int32(2), .int32(3)]))
        #expect(try client.property("Label") == .string("Brush"))
        #expect(try client.property("SelectedSize") == .int32(3))
    }

    @Test("a second daemon refuses to start: the name is taken (69)")
    func nameTaken() throws {
        let fixture = try DaemonFixture()
        let second = try fixture.tool(try DaemonFixture.snapsized, ["--no-accessibility", "--no-state"])
        #expect(second.status == 69)
        #expect(second.stderr.contains("already owned"))
        // In the person's language, the one line they read in a terminal.
        try #require(
            localeInstalled("pt_BR.UTF-8"),
            "pt_BR.UTF-8 is not installed: `make test` makes it (make locales)")
        _ = try compileCatalogs()
        let portuguese = try run(
            try DaemonFixture.snapsized, ["--no-accessibility", "--no-state"],
            environment: withLanguage(fixture.environment, LANG: "pt_BR.UTF-8"))
        #expect(portuguese.status == 69)
        #expect(
            portuguese.stderr.contains(
                "org.snapsize.SizeSelector1 já tem dono neste barramento de sessão: "
                    + "outro snapsized está em execução"), "\(portuguese.stderr)")
    }

    @Test("SIGTERM ends a preview, exits 0")
    func sigterm() throws {
        let fixture = try DaemonFixture()
        let (watcher, owner) = try fixture.watchedPreview()
        #expect(fixture.stop() == 0)
        #expect(watcher.pump { watcher.announcements.count == 2 })
        #expect(watcher.announcements.last?["Previewing"] == .boolean(false))
        withExtendedLifetime(owner) {}  // connected until the daemon has ended its preview
    }

    @Test("the session bus going away ends the daemon at once with a non-zero status")
    func busLost() throws {
        let fixture = try DaemonFixture()
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        fixture.bus.kill()
        #expect(waitUntil(timeout: 1) { !daemon.isRunning })
        #expect(daemon.wait() == 75)
        #expect(daemon.stderr.contains("session bus went away"))
    }

    @Test("no session bus at all: a clear line and 69")
    func noBus() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/snapsize-test-bus"
        environment["HOME"] = NSTemporaryDirectory()
        let result = try run(
            try DaemonFixture.snapsized, ["--no-accessibility", "--no-state"], environment: environment)
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot connect to the session bus"))
    }

    @Test("D-Bus activation from the project's dbus/ service directory")
    func activation() throws {
        let products = productsDirectory
        let bus = try PrivateSessionBus(
            serviceDirectories: [repositoryRoot + "/dbus"],
            extraEnvironment: [
                "PATH": products + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            ])
        defer {
            // Stop the activated daemon (a child of our bus) by its PID before the bus goes.
            if let reply = try? run(
                "gdbus",
                [
                    "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                    "/org/freedesktop/DBus", "--method",
                    "org.freedesktop.DBus.GetConnectionUnixProcessID", busName
                ],
                environment: bus.environment),
                let pid = Int32(reply.stdout.filter(\.isNumber))
            {
                kill(pid, SIGTERM)
            }
        }
        let result = try run(
            "gdbus",
            [
                "call", "--session", "--dest", busName, "--object-path", objectPath.rawValue,
                "--method", "\(interfaceName).Increment"
            ], environment: bus.environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("(uint32 3, 80, false)"))
    }
}
