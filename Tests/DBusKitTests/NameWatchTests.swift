import Foundation
import Testing
@_spi(Testing) import DBusKit
import TestSupport

@Suite("Watching one name's owner")
struct NameWatchTests {
    @Test("reports each new owner and the loss, only for that name, and nothing after cancel")
    func watch() throws {
        let bus = try PrivateSessionBus()
        let watcher = try Connection(address: bus.address)
        let loop = EventLoop()
        loop.add(watcher)
        var seen: [String?] = []
        let watch = watcher.watchNameOwner("org.example.Watched") { seen.append($0) }
        _ = try watcher.call(
            destination: "org.freedesktop.DBus", path: ObjectPath(rawValue: "/org/freedesktop/DBus")!,
            interface: "org.freedesktop.DBus", member: "GetId")  // the match is in place after this

        let owner = try Connection(address: bus.address)
        #expect(try owner.requestName(BusName(rawValue: "org.example.Other")!))
        #expect(try owner.requestName(BusName(rawValue: "org.example.Watched")!))
        #expect(try owner.releaseName(BusName(rawValue: "org.example.Watched")!))
        func pump(until condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(5)
            while !condition(), Date() < deadline { loop.run(seconds: 0.01) }
            return condition()
        }
        #expect(pump { seen.count == 2 })
        #expect(seen == [owner.uniqueName, nil], "org.example.Other must not be reported")

        watcher.cancel(watch)
        _ = try owner.requestName(BusName(rawValue: "org.example.Watched")!)
        loop.run(seconds: 0.2)
        #expect(seen.count == 2, "nothing after cancel: \(seen)")
    }
}
