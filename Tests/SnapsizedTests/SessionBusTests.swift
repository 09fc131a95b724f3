import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

extension DaemonTests {
    /// DBUS_SESSION_BUS_ADDRESS unset, a bus at $XDG_RUNTIME_DIR/bus (cron, sudo -u, su, containers):
    /// found the way gdbus, dbus-send and busctl --user find it.
    @Suite("the session bus at $XDG_RUNTIME_DIR/bus")
    struct SessionBusFallback {
        @Test("snapsized, snapsizectl and doctor use $XDG_RUNTIME_DIR/bus when the variable is unset")
        func fallback() throws {
            let fixture = try DaemonFixture(startDaemon: false, socketName: "bus")
            let runtime = try #require(fixture.environment["XDG_RUNTIME_DIR"])
            #expect(fixture.bus.address.hasPrefix("unix:path=\(runtime)/bus"), "\(fixture.bus.address)")
            fixture.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            try fixture.start()

            let get = try fixture.ctl(["set", "80"])
            #expect(get.status == 0 && get.out == "80\n", "\(get)")
            // The same bus as other clients see it: gdbus finds the daemon there too, with no variable set.
            let gdbus = try fixture.gdbusCall(
                "org.freedesktop.DBus.Properties.Get", SelectorBus.interface.rawValue, "SelectedSize")
            #expect(gdbus.status == 0 && gdbus.stdout == "(<80>,)\n", "\(gdbus.stdout) \(gdbus.stderr)")

            let doctor = try fixture.ctl(["doctor"])
            let first = doctor.out.split(separator: "\n").first.map(String.init) ?? ""
            #expect(
                first
                    == "[ok]   session bus reachable: unix:path=\(runtime)/bus (from $XDG_RUNTIME_DIR/bus)",
                "\(doctor.out)")
            #expect(
                !doctor.out.contains("dbus-run-session"),
                "never a second bus when one is there: \(doctor.out)")

            // A stale variable: doctor points at the bus that is there instead of suggesting another.
            let stale = try fixture.ctl(
                ["doctor"],
                environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/snapsize-bus"])
            #expect(stale.status == 69)
            #expect(stale.out.contains("your session bus is at \(runtime)/bus"), "\(stale.out)")
            #expect(!stale.out.contains("dbus-run-session"), "\(stale.out)")
        }

        @Test(
            "with neither the variable nor the socket: 'not set', and only then a bus of one's own is suggested"
        )
        func neither() throws {
            let fixture = try DaemonFixture(startDaemon: false)
            let runtime = try #require(fixture.environment["XDG_RUNTIME_DIR"])
            let get = try fixture.ctl(["get"], environment: ["DBUS_SESSION_BUS_ADDRESS": nil])
            #expect(get.status == 69)
            #expect(
                get.err.contains(
                    "DBUS_SESSION_BUS_ADDRESS is not set, and there is no session bus socket at \(runtime)/bus"
                ),
                "\(get.err)")
            let doctor = try fixture.ctl(["doctor"], environment: ["DBUS_SESSION_BUS_ADDRESS": nil])
            #expect(doctor.status == 69)
            #expect(doctor.out.contains("dbus-run-session"), "\(doctor.out)")
        }
    }
}
