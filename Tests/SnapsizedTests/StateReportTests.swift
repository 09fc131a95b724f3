import Foundation
import Testing
import DBusKit
import TestSupport
@_spi(Testing) import SnapService

/// Where the committed size is saved, as the person reads it: `snapsizectl status` and `doctor`
/// (the StateFile and StateSaving properties), through the real daemon.
@Suite("Where the size is saved, in status and doctor")
struct StateReportTests {
    func status(_ fixture: DaemonFixture) throws -> (plain: String, json: [String: Any]) {
        let plain = try fixture.ctl(["status"])
        #expect(plain.status == 0, "\(plain.err)")
        return (plain.out, try parseJSONObject(try fixture.ctl(["status", "--json"]).out))
    }

    /// What doctor's saving check found (the accessibility step fails: there is none; this check runs
    /// whenever snapsized answers), and the snapsized check of its --json.
    func doctorNotes(_ fixture: DaemonFixture) throws -> (notes: [String], json: [String: Any]) {
        let plain = try fixture.ctl(["doctor"], environment: ["AT_SPI_BUS_ADDRESS": nil])
        let title = "where the committed size is saved: "
        let line = try #require(
            plain.out.split(separator: "\n").first { $0.dropFirst(7).hasPrefix(title) }, "\(plain.out)")
        let json = try parseJSONObject(
            try fixture.ctl(["doctor", "--json"], environment: ["AT_SPI_BUS_ADDRESS": nil]).out)
        let checks = try #require(json["checks"] as? [[String: Any]])
        return ([String(line.dropFirst(7 + title.count))], checks[1])
    }

    @Test(
        "no HOME and no XDG_STATE_HOME: the password database's home, named in status and doctor",
        .enabled(
            if: passwordHome() != nil,
            "the password database names no home folder for this user, so there is no fallback to test"))
    func noHome() throws {
        let home = try #require(passwordHome())
        let fallback = home + "/.local/state/snapsize/state"
        // The user's own state file is never written by a test: no commit here.
        let fixture = try DaemonFixture(startDaemon: false)
        fixture.environment["HOME"] = nil
        fixture.environment["XDG_STATE_HOME"] = nil
        try fixture.start()
        let (plain, json) = try status(fixture)
        #expect(plain.contains("\nstate file: \(fallback)\nsaving:     saved\n"), "\(plain)")
        #expect(
            json["stateFile"] as? String == fallback && json["stateSaving"] as? String == "saved",
            "\(json)")
        #expect(json["stateProblem"] is NSNull)
        let doctor = try doctorNotes(fixture)
        #expect(doctor.notes == ["the size is saved in \(fallback)"], "\(doctor.notes)")
        #expect(
            doctor.json["stateFile"] as? String == fallback
                && doctor.json["stateSaving"] as? String == "saved")
        #expect(fixture.stop() == 0)
    }

    @Test("--no-state: status says none and off, doctor that nothing is saved and why")
    func noState() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.start(["--no-state"])
        let (plain, json) = try status(fixture)
        #expect(plain.contains("\nstate file: none\nsaving:     off\n"), "\(plain)")
        #expect(json["stateFile"] is NSNull && json["stateSaving"] as? String == "off", "\(json)")
        let doctor = try doctorNotes(fixture)
        #expect(
            doctor.notes == [
                "the size is not saved: snapsized was started with --no-state (or no-state in its config file)"
            ],
            "\(doctor.notes)")
        #expect(doctor.json["stateFile"] is NSNull && doctor.json["stateSaving"] as? String == "off")
        // Machine output is the same in another language; doctor's words are not (in this run's
        // catalogs: one compiled by an earlier run may not have the sentence yet).
        _ = try compileCatalogs()
        let portuguese: [String: String?] = [
            "LANG": "pt_BR.UTF-8", "LANGUAGE": nil, "LC_ALL": nil, "LC_MESSAGES": nil
        ]
        #expect(
            try fixture.ctl(["status", "--json"], environment: portuguese).out
                == (try fixture.ctl(["status", "--json"]).out))
        let translated = try fixture.ctl(
            ["doctor"], environment: portuguese.merging(["AT_SPI_BUS_ADDRESS": nil]) { $1 })
        #expect(
            translated.out.contains(": o tamanho não é salvo: o snapsized foi iniciado com --no-state"),
            "\(translated.out)")
    }

    @Test(
        "a state file whose folder cannot be made: failing at start, and saved once it can be; announced"
    )
    func unwritable() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let blocker = fixture.bus.directory + "/blocker"
        try "not a folder\n".write(toFile: blocker, atomically: true, encoding: .utf8)
        let stateFile = blocker + "/snapsize/state"
        try fixture.start(["--state-file", stateFile])
        let (plain, json) = try status(fixture)
        let why = "\(blocker) exists but is not a folder"
        #expect(plain.contains("\nstate file: \(stateFile)\nsaving:     failing: \(why)\n"), "\(plain)")
        #expect(
            json["stateSaving"] as? String == "failing" && json["stateProblem"] as? String == why,
            "\(json)")
        let doctor = try doctorNotes(fixture)
        #expect(
            doctor.notes == ["the size cannot be saved in \(stateFile), so changes are refused: \(why)"],
            "\(doctor.notes)")
        let client = try fixture.client()
        #expect(throws: MethodError.self) { try client.call("Increment") }
        #expect(try client.property("StateSaving").asString?.hasPrefix("failing: ") == true)

        // The place can take the file again: the next change is saved, and StateSaving says so.
        let watcher = try fixture.client()
        watcher.listen()
        try FileManager.default.removeItem(atPath: blocker)
        _ = try client.call("Increment")
        #expect(
            watcher.pump {
                watcher.propertiesChanged.contains { $0["StateSaving"] == .string("saved") }
            },
            "\(watcher.propertiesChanged)")
        #expect(try client.property("StateSaving") == .string("saved"))
        #expect(StateStore.peek(stateFile) == 80)
        // And when saving fails again, that is announced too.
        watcher.clear()
        try FileManager.default.removeItem(atPath: blocker + "/snapsize")
        try "not a folder\n".write(toFile: blocker + "/snapsize", atomically: true, encoding: .utf8)
        #expect(throws: MethodError.self) { try client.call("Increment") }
        #expect(
            watcher.pump {
                watcher.propertiesChanged.contains {
                    $0["StateSaving"]?.asString?.hasPrefix("failing: ") == true
                }
            },
            "\(watcher.propertiesChanged)")
    }
}
