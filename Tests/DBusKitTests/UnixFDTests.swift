import Foundation
import Testing
import TestSupport
@testable import DBusKit
#if canImport(Glibc)
    import Glibc
#endif

/// File descriptors received in a message (type `h`, as a bus's `ProcessFD`): through a real bus, from
/// a GDBus service (Python) that answers with a descriptor of a file it opened.
@Suite("Unix file descriptors received", .serialized)
struct UnixFDTests {
    static let service = """
        import os, sys
        from gi.repository import Gio, GLib
        xml = ("<node><interface name='org.example.Fds1'><method name='Open'>"
               "<arg type='h' direction='out'/></method></interface></node>")
        def call(connection, sender, path, interface, method, parameters, invocation):
            fds = Gio.UnixFDList.new_from_array([os.open(sys.argv[2], os.O_RDONLY)])
            invocation.return_value_with_unix_fd_list(GLib.Variant("(h)", (0,)), fds)
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        connection = Gio.DBusConnection.new_for_address_sync(sys.argv[1], flags, None, None)
        connection.register_object("/org/example/Fds", Gio.DBusNodeInfo.new_for_xml(xml).interfaces[0], call)
        print(connection.get_unique_name(), flush=True)
        GLib.MainLoop().run()
        """

    @Test("a received descriptor is open on the sender's file, and closed once its value is gone")
    func received() throws {
        let bus = try startBus()
        let file = bus.directory + "/content"
        try "through the bus".write(toFile: file, atomically: true, encoding: .utf8)
        let script = bus.directory + "/fds.py"
        try Self.service.write(toFile: script, atomically: true, encoding: .utf8)
        let python = try ChildProcess(
            "/usr/bin/python3", [script, bus.address, file], environment: bus.environment)
        defer { python.terminate() }
        var name = ""
        #expect(
            waitUntil(timeout: 20) {
                name = python.stdout; return name.hasSuffix("\n")
            }, "\(python.stderr)")
        let client = try Connection(address: bus.address)
        var descriptor: Int32 = -1
        var opened = stat()
        do {
            let reply = try client.call(
                destination: String(name.dropLast()), path: ObjectPath(rawValue: "/org/example/Fds")!,
                interface: "org.example.Fds1", member: "Open", timeoutMilliseconds: 10_000)
            let received = try #require(reply.first?.asUnixFD, "\(reply)")
            #expect(reply.first?.signature == "h")
            descriptor = received.descriptor
            #expect(fstat(descriptor, &opened) == 0)
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = pread(descriptor, &bytes, bytes.count, 0)
            #expect(String(decoding: bytes.prefix(max(0, count)), as: UTF8.self) == "through the bus")
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "not inherited by children")
        }
        #expect(descriptor >= 0)
        // Closed with its value (or its number already another file's, opened by a test beside this one).
        var now = stat()
        #expect(
            fstat(descriptor, &now) != 0 || (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino))
    }

    @Test("a descriptor is never sent")
    func neverSent() throws {
        let bus = try startBus()
        let client = try Connection(address: bus.address)
        let file = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let value = DBusValue.unixFD(UnixFD(adopting: file))
        for body in [[value], [.variant(value)], [.array(elementSignature: "h", [value])]] {
            let error = methodError { () throws(MethodError) in
                _ = try client.call(
                    destination: BusName.bus.rawValue, path: .bus,
                    interface: InterfaceName.peer.rawValue,
                    member: "Ping", arguments: body, timeoutMilliseconds: 5000)
            }
            #expect(error?.name == .invalidArgs, "\(body)")
        }
    }
}
