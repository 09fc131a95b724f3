import Foundation
import Testing
import DBusKit
import TestSupport

/// A config file that cannot be used is not used (at start) or changes nothing (on a reload), and the
/// person learns why from the daemon, not only from its stderr (/dev/null under activation, the
/// journal under systemd): the ConfigProblems property, which `snapsizectl status` shows.
@Suite("Config file problems reach the person", .serialized)
struct ConfigProblemsTests {
    @Test(
        "one bad line: the file is not used, ConfigProblems names the line, status shows it; a good reload clears it, announced; a bad reload says the settings stay"
    )
    func badLine() throws {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.writeConfig("sizes = 10, 20, 30\nsizez = 1\n")
        try fixture.start()
        let client = try fixture.client()
        let unused =
            "\(fixture.configFile):2: unknown key 'sizez' (did you mean 'sizes'?); the file was not used: the built-in settings and the options apply"
        #expect(try client.property("ConfigProblems") == DBusValue.stringArray([unused]))
        #expect(
            try client.property("Sizes")
                == .array(elementSignature: "i", [20, 40, 60, 80, 100].map { .int32($0) }))
        let status = try fixture.tool(try #require(productPath("snapsizectl")), ["status"])
        #expect(status.stdout.hasSuffix("config:     \(unused)\n"), "\(status.stdout)")
        let json = try fixture.tool(try #require(productPath("snapsizectl")), ["status", "--json"])
        #expect(json.stdout.contains("\"configProblems\":[\"\(unused)\"]"), "\(json.stdout)")

        let watcher = try fixture.client()
        watcher.listen()
        #expect(try fixture.reload(config: "sizes = 10, 20, 30\n"))
        #expect(watcher.pump { watcher.propertiesChanged.contains { $0["ConfigProblems"] != nil } })
        #expect(try client.property("ConfigProblems") == DBusValue.stringArray([]))
        #expect(
            try client.property("Sizes")
                == .array(elementSignature: "i", [10, 20, 30].map { .int32($0) }))
        #expect(
            !(try fixture.tool(try #require(productPath("snapsizectl")), ["status"])).stdout.contains(
                "config:"))

        watcher.clear()
        #expect(try fixture.reload(config: "sizes = 10, 20, 30\nlayout = round\n"))
        #expect(watcher.pump { watcher.propertiesChanged.contains { $0["ConfigProblems"] != nil } })
        let refused = try client.property("ConfigProblems").asStringArray ?? []
        #expect(
            refused.count == 1 && refused[0].hasPrefix("\(fixture.configFile): ")
                && refused[0].hasSuffix("; the reload changed nothing: the running settings stay"),
            "\(refused)")
        #expect(
            try client.property("Sizes")
                == .array(elementSignature: "i", [10, 20, 30].map { .int32($0) }))
    }

    @Test("a file that is fine, or none: ConfigProblems is empty")
    func none() throws {
        let fixture = try DaemonFixture()
        #expect(try fixture.client().property("ConfigProblems") == DBusValue.stringArray([]))
    }
}
