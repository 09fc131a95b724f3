import Testing
@testable import DBusKit

@Suite("Marshalling through real messages")
struct ValueTests {
    static let samples: [DBusValue] = [
        .byte(0), .byte(255),
        .boolean(true), .boolean(false),
        .int16(.min), .uint16(.max),
        .int32(-42), .uint32(.max),
        .int64(.min), .uint64(.max),
        .double(3.25), .double(-0.0), .double(.infinity),
        .string(""), .string("héllo wörld ✓"),
        .objectPath(ObjectPath(rawValue: "/org/example/Test")!), .objectPath(.root),
        .signature("a{sv}(iu)"), .signature(""),
        .array(elementSignature: "u", [.uint32(1), .uint32(2)]),
        .array(elementSignature: "s", []),
        .array(elementSignature: "(so)", [.structure([.string(":1.1"), .objectPath(.root)])]),
        .array(elementSignature: "au", [.array(elementSignature: "u", [.uint32(7)])]),
        .structure([.int32(1), .string("x"), .variant(.double(2))]),
        .variant(.variant(.uint64(9))),
        .stringDict(["b": .uint32(2), "a": .string("one")]),
        .stringStringDict(["toolkit": "snapsize"]),
        .array(
            elementSignature: "{ua(so)}",
            [
                .dictEntry(
                    .uint32(1),
                    .array(elementSignature: "(so)", [.structure([.string("n"), .objectPath(.root)])]))
            ])
    ]

    @Test("one value round-trips", arguments: samples)
    func roundTrip(_ value: DBusValue) throws {
        let back = try Message.roundTrip([value])
        #expect(back == [value])
        #expect(back.first?.signature == value.signature)
    }

    @Test("a whole body round-trips in order")
    func wholeBody() throws {
        #expect(try Message.roundTrip(Self.samples) == Self.samples)
        #expect(try Message.roundTrip([]) == [])
    }

    @Test(
        "malformed values are rejected before libdbus sees them",
        arguments: [
            DBusValue.array(elementSignature: "u", [.string("not a u")]),
            .dictEntry(.string("k"), .string("v")),
            .array(elementSignature: "{vs}", [.dictEntry(.variant(.int32(1)), .string("x"))]),
            .structure([]),
            .string("nul\u{0}inside"),
            .signature("a{"),
            .variant(.dictEntry(.string("k"), .string("v"))),
            .array(elementSignature: "uu", [])
        ])
    func malformed(_ value: DBusValue) {
        let error = methodError { () throws(MethodError) in _ = try Message.roundTrip([value]) }
        #expect(error?.name == .invalidArgs)
    }

    @Test("signatures")
    func signatures() {
        #expect(DBusValue.stringDict([:]).signature == "a{sv}")
        #expect(DBusValue.structure([.string("a"), .objectPath(.root)]).signature == "(so)")
        #expect(signature(of: [.string("a"), .uint32(1)]) == "su")
    }

    @Test("typed extractors")
    func extractors() {
        #expect(DBusValue.uint32(5).asUInt32 == 5)
        #expect(DBusValue.uint32(5).asInt32 == nil)
        #expect(DBusValue.variant(.string("x")).asVariant == .string("x"))
        #expect(DBusValue.stringDict(["a": .boolean(true)]).asStringDict == ["a": .boolean(true)])
        #expect(DBusValue.stringStringDict(["k": "v"]).asStringStringDict == ["k": "v"])
        #expect(DBusValue.stringArray(["a", "b"]).asStringArray == ["a", "b"])
        #expect(DBusValue.double(1.5).asDouble == 1.5)
    }
}
