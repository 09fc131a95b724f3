import Foundation
import Testing
import DBusKit
import TestSupport
@testable import SnapService

/// Broken state and config files: a clear message, a safe fallback, the bad state file kept aside,
/// the user's config left untouched, never a crash. An unreadable file is UnreadableFileTests' (in
/// process, where the read can be made to fail even for root).
@Suite("Bad state and config files")
struct BadFileTests {
    enum Damage: String, CaseIterable, Sendable {
        case empty, binary, huge, directory, symlink, unsorted, outOfRange
    }

    /// Makes `path` damaged in the given way; returns the path of a symlink target, if any.
    @discardableResult
    static func damage(_ path: String, _ kind: Damage, valid: String) throws -> String? {
        let manager = FileManager.default
        try manager.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        switch kind {
        case .empty:
            try "".write(toFile: path, atomically: false, encoding: .utf8)
        case .binary:
            try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }).write(
                to: URL(fileURLWithPath: path))
        case .huge:
            // 100 MB, sparse so the test writes almost nothing.
            _ = manager.createFile(atPath: path, contents: Data(valid.utf8))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: 100 * 1024 * 1024)
            try handle.close()
        case .directory:
            try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
        case .symlink:
            let target = path + "-elsewhere"
            try valid.write(toFile: target, atomically: false, encoding: .utf8)
            try manager.createSymbolicLink(atPath: path, withDestinationPath: target)
            return target
        case .unsorted:
            try "size=40\nsize=20\nsizes = 60, 20\n".write(
                toFile: path, atomically: false, encoding: .utf8)
        case .outOfRange:
            try "size=99999999999999999999\nsizes = 20, 99999999999\n".write(
                toFile: path, atomically: false, encoding: .utf8)
        }
        return nil
    }

    @Test("a bad state file", arguments: Damage.allCases)
    func state(kind: Damage) throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let target = try Self.damage(fixture.stateFile, kind, valid: "size=20\n")
        try fixture.start(["--initial", "80"])
        let client = try fixture.client()
        // The symlink's target says 20, but a link is never followed: the initial size is used.
        #expect(try client.property("SelectedSize") == .int32(80))
        let stderr = fixture.daemon?.stderr ?? ""
        #expect(
            stderr.contains("state file") && stderr.contains("could not be used"), "stderr: \(stderr)")
        let folder = (fixture.stateFile as NSString).deletingLastPathComponent
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("state.bad-")
        }
        #expect(kept.count == 1, "kept aside: \(kept)")
        if let target {
            #expect(
                try String(contentsOfFile: target, encoding: .utf8) == "size=20\n",
                "the link's target was touched")
        }
        // Saving works again, as a fresh regular file with mode 0600.
        _ = try client.call("Increment")
        #expect(savedSize(fixture.stateFile) == 100)
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.stateFile)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
    }

    @Test(
        "a bad default config file is reported and ignored, and left as it was",
        arguments: Damage.allCases.filter { $0 != .symlink && $0 != .empty })
    func config(kind: Damage) throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let path = fixture.configFile
        try Self.damage(path, kind, valid: "sizes = 1,2,3\n")
        let before = try? Data(contentsOf: URL(fileURLWithPath: path))
        try fixture.start(["--label", "Brush"])
        let client = try fixture.client()
        #expect(
            try client.property("Sizes")
                == .array(elementSignature: "i", [20, 40, 60, 80, 100].map { .int32($0) }))
        #expect(try client.property("Label") == .string("Brush"))
        let stderr = fixture.daemon?.stderr ?? ""
        #expect(stderr.contains("ignoring the config file"), "stderr: \(stderr)")
        #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == before)
    }

    @Test("an empty config file and a symlinked one are fine")
    func configFine() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let path = fixture.configFile
        try Self.damage(path, .symlink, valid: "sizes = 1,2,3\n")
        try fixture.start()
        #expect(
            try fixture.client().property("Sizes")
                == .array(elementSignature: "i", [.int32(1), .int32(2), .int32(3)]))
        #expect(fixture.daemon?.stderr == "")
    }

    @Test("a bad file named with --config stops start-up with 64")
    func explicitConfig() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        let path = fixture.bus.directory + "/explicit.conf"
        try "sizes = 60, 20\n".write(toFile: path, atomically: false, encoding: .utf8)
        let result = try fixture.tool(
            try DaemonFixture.snapsized, ["--no-accessibility", "--config", path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("strictly increase"), "stderr: \(result.stderr)")
        let missing = try fixture.tool(
            try DaemonFixture.snapsized, ["--no-accessibility", "--config", path + ".nope"])
        #expect(missing.status == 64 && missing.stderr.contains("does not exist"))
    }
}
