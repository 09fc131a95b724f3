import Foundation
import Testing
import DBusKit
@testable import SnapService
import TestSupport

/// The state and config files in the shapes people and their tools leave them: a state file or its
/// folder moved away under the running daemon (a backup tool, an editor), no HOME at all, a config
/// file saved on Windows.
@Suite("Reliability: files moved, missing homes, Windows line ends", .serialized)
struct FileFaultTests {
    @Test(
        "commits after the state file is moved aside (mv state state~) go to a new state file and survive kill -9"
    )
    func movedStateFile() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(80)])
        try FileManager.default.moveItem(atPath: fixture.stateFile, toPath: fixture.stateFile + "~")
        _ = try client.call("SetSize", [.int32(100)])
        _ = try client.call("SetSize", [.int32(40)])
        #expect(savedSize(fixture.stateFile) == 40, "the commits went into the moved file")
        #expect(savedSize(fixture.stateFile + "~") == 80, "the moved copy is left as it was")
        let lines = fixture.daemon?.stderr.components(separatedBy: "is no longer the file").count ?? 0
        #expect(lines == 2, "logged once: \(fixture.daemon?.stderr ?? "")")
        _ = fixture.daemon.map { kill($0.pid, SIGKILL) }
        fixture.stop()
        try fixture.start()
        #expect(try fixture.client().property("SelectedSize") == .int32(40))
    }

    @Test("commits after the state folder is renamed go to a new folder and file, and survive kill -9")
    func movedStateFolder() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(80)])
        let folder = (fixture.stateFile as NSString).deletingLastPathComponent
        try FileManager.default.moveItem(atPath: folder, toPath: folder + ".old")
        _ = try client.call("SetSize", [.int32(20)])
        #expect(savedSize(fixture.stateFile) == 20)
        _ = fixture.daemon.map { kill($0.pid, SIGKILL) }
        fixture.stop()
        try fixture.start()
        #expect(try fixture.client().property("SelectedSize") == .int32(20))
        let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test(
        "a state file replaced by another file: the commit goes to a new file, never into the replaced one"
    )
    func replacedStateFile() throws {
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        _ = try client.call("SetSize", [.int32(80)])
        let copy = fixture.stateFile + ".copy"
        try FileManager.default.copyItem(atPath: fixture.stateFile, toPath: copy)
        _ = rename(copy, fixture.stateFile)  // what an editor's save does: a new inode under the name
        _ = try client.call("SetSize", [.int32(100)])
        _ = fixture.daemon.map { kill($0.pid, SIGKILL) }
        fixture.stop()
        try fixture.start()
        #expect(try fixture.client().property("SelectedSize") == .int32(100))
    }

    @Test(
        "no HOME and no XDG_STATE_HOME: the state file is the password database's home's, and the log says so at start",
        .enabled(
            if: passwordHome() != nil,
            "the password database names no home folder for this user, so there is no fallback to test"))
    func noHome() throws {
        let home = try #require(passwordHome())
        let fallback = home + "/.local/state/snapsize/state"
        #expect(defaultStatePath(environment: [:]) == fallback)
        // The user's own state file is never touched by a test: no commit here.
        let fixture = try DaemonFixture(startDaemon: false)
        fixture.environment["HOME"] = nil
        fixture.environment["XDG_STATE_HOME"] = nil
        try fixture.start()
        let client = try fixture.client()
        _ = try client.property("SelectedSize")
        let log = fixture.daemon?.stderr ?? ""
        #expect(
            log.contains(
                "neither XDG_STATE_HOME nor HOME is set: the committed size is saved in \(fallback)"),
            "\(log)")
        #expect(fixture.stop() == 0)
    }

    @Test(
        "where the committed size goes without HOME: the password database's home, or nothing and a line saying so"
    )
    func statePlaces() {
        let none: () -> String? = { nil }
        #expect(
            defaultStatePath(environment: [:], passwordHome: { "/home/ana" })
                == "/home/ana/.local/state/snapsize/state")
        #expect(
            defaultConfigPath(environment: [:], passwordHome: { "/home/ana" })
                == "/home/ana/.config/snapsize/config")
        #expect(defaultStatePath(environment: ["HOME": "relative"], passwordHome: none) == nil)
        #expect(
            defaultStatePath(environment: ["HOME": "/h"], passwordHome: none)
                == "/h/.local/state/snapsize/state")
        #expect(
            statePlaceNote(stateFile: nil, chosenNone: false, environment: [:])?.contains("NOT saved")
                == true)
        #expect(
            statePlaceNote(stateFile: nil, chosenNone: true, environment: [:]) == nil,
            "--no-state said so")
        #expect(
            statePlaceNote(stateFile: "/x/state", chosenNone: false, environment: [:]) == nil,
            "--state-file named it")
        #expect(statePlaceNote(stateFile: nil, chosenNone: false, environment: ["HOME": "/h"]) == nil)
    }

    @Test(
        "a config file with CRLF line ends and a UTF-8 byte-order mark is read as any other",
        arguments: [
            "\u{FEFF}label = Brush\r\nsizes = 10,30,50\r\n",
            "label = Brush\r\n# a comment\r\n\r\nsizes = 10,30,50",
            "\u{FEFF}label = Brush\nsizes = 10,30,50\n"
        ])
    func windowsConfig(text: String) throws {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.writeConfig(text)
        try fixture.start()
        let client = try fixture.client()
        #expect(try client.property("Label") == .string("Brush"), "\(fixture.daemon?.stderr ?? "")")
        #expect(try client.property("SelectedSize") == .int32(30))
        #expect(
            fixture.daemon?.stderr.contains("ignoring the config file") == false,
            "\(fixture.daemon?.stderr ?? "")")
        // And on reload.
        #expect(try fixture.reload(config: text.replacingOccurrences(of: "Brush", with: "Pen")))
        #expect(try client.property("Label") == .string("Pen"), "\(fixture.daemon?.stderr ?? "")")
    }
}
