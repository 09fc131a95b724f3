import Foundation
import Testing
import DBusKit
import TestSupport

/// The service as other D-Bus implementations see it: dbus-send (libdbus) and gdbus (GDBus).
@Suite("Interoperability with dbus-send and gdbus")
struct ToolTests {
    let bus: PrivateSessionBus
    let service: LoopThread

    init() throws {
        bus = try startBus()
        let address = bus.address
        service = try LoopThread { loop in try TestService.start(on: loop, address: address) }
    }

    private func tool(_ executable: String, _ arguments: [String]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try run(executable, arguments, environment: bus.environment, timeout: 20)
    }

    @Test("dbus-send calls methods and reads properties")
    func dbusSend() throws {
        let dest = "--dest=\(TestService.busName.rawValue)"
        let add = try tool(
            "dbus-send",
            [
                "--session", "--print-reply", dest, TestService.path.rawValue,
                "org.example.Test1.Add", "int32:40", "int32:2"
            ])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("int32 42"))
        let get = try tool(
            "dbus-send",
            [
                "--session", "--print-reply", dest, TestService.path.rawValue,
                "org.freedesktop.DBus.Properties.Get", "string:org.example.Test1", "string:Version"
            ])
        #expect(get.stdout.contains("variant       string \"1.0\""), "\(get.stdout)")
        let wrong = try tool(
            "dbus-send",
            [
                "--session", "--print-reply", dest, TestService.path.rawValue,
                "org.example.Test1.Increment", "double:1"
            ])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(wrong.stderr)")
        // Without --print-reply dbus-send sets NO_REPLY_EXPECTED; the handler still runs.
        let noReply = try tool(
            "dbus-send",
            [
                "--session", "--type=method_call", dest, TestService.path.rawValue,
                "org.example.Test1.Increment"
            ])
        #expect(noReply.status == 0)
        let count = try tool(
            "dbus-send",
            [
                "--session", "--print-reply", dest, TestService.path.rawValue,
                "org.example.Test1.Increment"
            ])
        #expect(count.stdout.contains("uint32 2"), "\(count.stdout)")
    }

    @Test("gdbus calls, introspects and gets structured errors")
    func gdbus() throws {
        let base = [
            "call", "--session", "--dest", TestService.busName.rawValue, "--object-path",
            TestService.path.rawValue,
            "--method"
        ]
        let echo = try tool("gdbus", base + ["org.example.Test1.Echo", "héllo"])
        #expect(echo.status == 0, "\(echo.stderr)")
        #expect(echo.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "('héllo',)")
        let all = try tool(
            "gdbus", base + ["org.freedesktop.DBus.Properties.GetAll", "org.example.Test1"])
        #expect(all.stdout.contains("'Version': <'1.0'>"), "\(all.stdout)")
        let unknown = try tool(
            "gdbus", base + ["org.freedesktop.DBus.Properties.Get", "org.example.Test1", "Nope"])
        #expect(unknown.status != 0)
        #expect(
            unknown.stderr.contains("org.freedesktop.DBus.Error.UnknownProperty"), "\(unknown.stderr)")
        let ping = try tool("gdbus", base + ["org.freedesktop.DBus.Peer.Ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
        let introspect = try tool(
            "gdbus",
            [
                "introspect", "--session", "--dest", TestService.busName.rawValue,
                "--object-path", TestService.path.rawValue
            ])
        #expect(introspect.status == 0, "\(introspect.stderr)")
        #expect(introspect.stdout.contains("interface org.example.Test1"), "\(introspect.stdout)")
        #expect(introspect.stdout.contains("readwrite s Label"), "\(introspect.stdout)")
    }
}
