internal import CDBus
import Testing
@testable import DBusKit

/// A signal written byte by byte (`MessageBytes`) and taken by libdbus must be the message libdbus's
/// own writer makes: byte for byte on the wire, once both carry the same serial.
@Suite("Signals built from their bytes")
struct MessageBytesTests {
    /// The message as libdbus would send it, with serial 7.
    private func wire(_ message: Message) -> [UInt8] {
        dbus_message_set_serial(message.raw, 7)
        var bytes: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(message.raw, &bytes, &length) != 0, let bytes else { return [] }
        defer { dbus_free(bytes) }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    private func bothWays(_ body: [DBusValue], member: String = "Tick") throws -> (
        ours: [UInt8], libdbus: [UInt8]
    ) {
        let path = ObjectPath(unchecked: "/org/example/Test1")
        let interface = InterfaceName(unchecked: "org.example.Test1")
        let ours = try Message.signal(path: path, interface: interface, member: member, body: body)
        let theirs = try Message.signal(path: path, interface: interface, member: member)
        try theirs.append(body)
        #expect(try ours.arguments() == body)
        return (wire(ours), wire(theirs))
    }

    @Test(
        "every type, nested containers, empty arrays and each alignment: the bytes libdbus's writer makes",
        arguments: [
            [],
            [.byte(1), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5)],
            [.byte(9), .int64(-6), .byte(8), .uint64(7), .byte(7), .double(-0.5)],
            [.string(""), .string("é"), .objectPath(ObjectPath(unchecked: "/a/b")), .signature("a{sv}")],
            [.byte(1), .array(elementSignature: "t", []), .array(elementSignature: "(yy)", [])],
            [
                .array(elementSignature: "y", [.byte(1), .byte(2), .byte(3)]),
                .array(elementSignature: "d", [.double(1)])
            ],
            [.structure([.byte(1), .string("x"), .structure([.int64(2)])])],
            [
                .variant(.variant(.structure([.byte(3), .double(2)]))),
                .variant(.array(elementSignature: "q", [.uint16(1)]))
            ],
            [
                .string("org.example.Test1"),
                .array(
                    elementSignature: "{sv}",
                    [
                        .dictEntry(.string("SelectedIndex"), .variant(.uint32(3))),
                        .dictEntry(.string("ValueText"), .variant(.string("80 points"))),
                        .dictEntry(
                            .string("ChangedBy"),
                            .variant(
                                .structure([.string(":1.42"), .uint32(4242), .string("snapsizectl inc")])
                            )),
                        .dictEntry(
                            .string("Sizes"),
                            .variant(.array(elementSignature: "i", [.int32(20), .int32(40)])))
                    ]),
                .stringArray([])
            ]
        ] as [[DBusValue]])
    func sameBytes(_ body: [DBusValue]) throws {
        let (ours, libdbus) = try bothWays(body)
        #expect(!ours.isEmpty && ours == libdbus, "\(body)")
    }

    @Test("a malformed value or member is refused as libdbus's writer refuses it, before any byte")
    func refusals() {
        let path = ObjectPath(unchecked: "/a")
        let interface = InterfaceName(unchecked: "org.example.Test1")
        #expect(throws: MethodError.self) {
            try Message.signal(
                path: path, interface: interface, member: "Tick", body: [.string("a\u{0}b")])
        }
        #expect(throws: MethodError.self) {
            try Message.signal(path: path, interface: interface, member: "no-dashes", body: [])
        }
        #expect(throws: MethodError.self) {
            try Message.signal(
                path: path, interface: interface, member: "Tick",
                body: [.array(elementSignature: "u", [.int32(1)])])
        }
    }
}
