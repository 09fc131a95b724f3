@_spi(Testing) import DBusKit
import TestSupport
import Testing

/// `Connection.registered(address:requesting:)`: Hello and RequestName in one round trip (snapsized's
/// start-up), against a real dbus-daemon.
@Suite("Hello and RequestName together")
struct RegistrationTests {
    @Test(
        "the connection has its unique name, owns the name, and serves calls; a second one is refused the name"
    )
    func registeredOwnsTheName() throws {
        let bus = try PrivateSessionBus()
        let name = BusName(rawValue: "org.example.Pipelined")!
        let (first, owned) = try Connection.registered(address: bus.address, requesting: name)
        #expect(try owned.get())
        #expect(first.uniqueName.hasPrefix(":"), "unique name '\(first.uniqueName)'")

        let other = try Connection(address: bus.address)
        #expect(try other.nameOwner(name.rawValue) == first.uniqueName)
        // The unique name the bus knows is the one the connection reports (GetConnectionUnixProcessID
        // would refuse a name that is not connected).
        #expect(try other.nameHasOwner(first.uniqueName))
        // A call through the registered connection works as with init(address:).
        #expect(try first.nameHasOwner(first.uniqueName))

        let (second, again) = try Connection.registered(address: bus.address, requesting: name)
        #expect(try again.get() == false)
        #expect(second.uniqueName != first.uniqueName && second.uniqueName.hasPrefix(":"))
    }

    @Test("a bus that is not there is an error of the connection, not of the name")
    func noBus() throws {
        #expect(throws: MethodError.self) {
            _ = try Connection.registered(
                address: "unix:path=/nonexistent/snapsize-test-bus",
                requesting: BusName(rawValue: "org.example.Pipelined")!)
        }
    }
}
