import Foundation
import Testing
import DBusKit
import SnapCore
import TestSupport

/// Reliability on the accessibility side: malformed calls on the AT-SPI objects, and a client that
/// dies holding a preview.
@Suite("Accessible slider under faults", .serialized)
struct AccessibilityFaultTests {
    static let root = ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!
    static let slider = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!

    @Test("fuzzing the AT-SPI objects: never dies, every call answered, state equals the replay")
    func fuzz() throws {
        let fixture = try SliderFixture()
        let a11y = try Connection(address: fixture.stack.address)
        let app = try applicationName(a11y)
        var model = try Selection(committed: 2)
        var random = SeededRandom.replayable("a11y fuzz")
        let paths = [
            Self.root, Self.slider, ObjectPath(rawValue: "/org/a11y/atspi/cache")!,
            ObjectPath(rawValue: "/org/a11y/atspi/accessible/nope")!, ObjectPath(rawValue: "/")!
        ]
        let interfaces = [
            "org.a11y.atspi.Accessible", "org.a11y.atspi.Value", "org.a11y.atspi.Action",
            "org.a11y.atspi.Component", "org.a11y.atspi.Application", "org.a11y.atspi.Cache",
            "org.freedesktop.DBus.Properties", "org.a11y.atspi.Nope"
        ]
        let members = [
            "GetChildAtIndex", "GetChildren", "GetState", "GetRole", "GetAttributes", "GetInterfaces",
            "DoAction", "GetName", "GetDescription", "GetExtents", "GrabFocus", "Contains", "GetItems",
            "Get", "Set", "GetAll", "GetApplicationBusAddress", "GetLocale", "Frobnicate"
        ]
        let odd: [DBusValue] = [
            .int32(-1), .int32(Int32.max), .int32(0), .int32(1), .uint32(7), .string("x"),
            .double(.nan), .double(3.6), .boolean(true), .variant(.double(1e300))
        ]
        let calls = stressing ? 20_000 : 3_000
        var answered = 0, refused = 0, valueWrites = 0
        for number in 0..<calls {
            var path = paths.randomElement(using: &random)!
            var interface = interfaces.randomElement(using: &random)!
            var member = members.randomElement(using: &random)!
            var arguments = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                odd.randomElement(using: &random)!
            }
            var replay: ((inout Selection) throws(SnapError) -> Void)?
            switch Int.random(in: 0..<10, using: &random) {
            case 0:  // a value write as pyatspi does it, sometimes with a bad variant
                let value = [0.4, 1.5, 3.6, -9, 99, .nan, .infinity].randomElement(using: &random)!
                (path, interface, member) = (Self.slider, "org.freedesktop.DBus.Properties", "Set")
                arguments = [
                    .string("org.a11y.atspi.Value"), .string("CurrentValue"), .variant(.double(value))
                ]
                replay = { selection throws(SnapError) in _ = try selection.set(indexValue: value) }
                valueWrites += 1
            case 1:  // an action
                let index = Int32.random(in: -1...2, using: &random)
                (path, interface, member, arguments) = (
                    Self.slider, "org.a11y.atspi.Action", "DoAction", [.int32(index)]
                )
                if index == 0 || index == 1 {
                    replay = { selection throws(SnapError) in
                        _ = try selection.step(by: index == 0 ? 1 : -1)
                    }
                }
            default:
                break
            }
            do {
                _ = try a11y.call(
                    destination: app, path: path, interface: interface, member: member,
                    arguments: arguments, timeoutMilliseconds: 5000)
                answered += 1
                // Writes and actions always reply normally (libatspi ignores errors); the core decides.
                if let replay { try? replay(&model) }
            } catch {
                refused += 1
                #expect(
                    ![ErrorName.noReply, .timeout, .disconnected, .serviceUnknown].contains(error.name),
                    "call \(number) \(interface).\(member)\(arguments) on \(path.rawValue): \(error) (seed \(random.seed))"
                )
            }
            if fixture.daemon?.isRunning != true {
                Issue.record(
                    "the daemon died at call \(number) (seed \(random.seed)): \(fixture.daemon?.stderr ?? "")"
                )
                break
            }
        }
        #expect(
            try fixture.client.selectorProperty("SelectedIndex") == .uint32(UInt32(model.committed)),
            "seed \(random.seed)")
        let current = try a11y.call(
            destination: app, path: Self.slider, interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.a11y.atspi.Value"), .string("CurrentValue")])
        #expect(current.first?.asVariant == .double(Double(model.shown)), "seed \(random.seed)")
        #expect(answered > 0 && refused > 0 && valueWrites > 0, "seed \(random.seed)")
        print(
            "a11y fuzz: \(calls) calls: \(answered) answered normally, \(refused) refused with a named error"
        )
    }

    @Test("a client killed while holding a preview: reverted, announced on both buses")
    func killedClient() throws {
        let fixture = try SliderFixture()
        let a11y = try Connection(address: fixture.stack.address)
        let app = try applicationName(a11y)
        let loop = EventLoop()
        loop.add(a11y)
        loop.add(fixture.client)
        var valueEvents: [Date] = []
        var previewing: [(Date, Bool)] = []
        a11y.addMatch(
            "type='signal',sender='\(app)',interface='org.a11y.atspi.Event.Object',member='PropertyChange'"
        )
        _ = a11y.onSignal(
            interface: "org.a11y.atspi.Event.Object", member: "PropertyChange", path: Self.slider
        ) { signal in
            if signal.arguments.first == .string("accessible-value") { valueEvents.append(Date()) }
        }
        fixture.client.addMatch("type='signal',sender='\(selectorName)',member='PropertiesChanged'")
        _ = fixture.client.onSignal(
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: selectorPath
        ) { signal in
            if let flag = signal.arguments.dropFirst().first?.asStringDict?["Previewing"]?.asBool {
                previewing.append((Date(), flag))
            }
        }
        _ = try fixture.client.selectorProperty("SelectedIndex")  // the matches are in place after this round trip
        // A real client process holding a preview: a slow drag that would take an hour.
        let ctl = try #require(productPath("snapsizectl"))
        let drag = try ChildProcess(
            ctl, ["drag", "12", "324", "--release", "324", "--interval", "3600"],
            environment: fixture.bus.environment)
        let opened = loop.pump(timeout: 5) { previewing.contains { $0.1 } && !valueEvents.isEmpty }
        #expect(opened, "the drag did not open a preview: \(drag.stderr)")
        let eventsBefore = valueEvents.count
        let killed = Date()
        kill(drag.pid, SIGKILL)
        _ = drag.wait()
        // How soon is make bench's business; here: both sides hear of it.
        #expect(
            loop.pump(timeout: 10) { previewing.last?.1 == false && valueEvents.count > eventsBefore })
        let reverted = previewing.last.map { $0.0.timeIntervalSince(killed) } ?? .infinity
        let event = valueEvents.last.map { $0.timeIntervalSince(killed) } ?? .infinity
        #expect(try fixture.client.selectorProperty("ShownIndex") == .uint32(2))
        print(
            "killed client: preview reverted "
                + String(
                    format: "%.1f ms (D-Bus PropertiesChanged), %.1f ms (AT-SPI accessible-value)",
                    reverted * 1000, event * 1000) + " after kill -9")
    }

    private func applicationName(_ a11y: Connection) throws -> String {
        let children = try a11y.call(
            destination: "org.a11y.atspi.Registry", path: Self.root,
            interface: "org.a11y.atspi.Accessible",
            member: "GetChildren", timeoutMilliseconds: 5000)
        guard let name = children.first?.asArray?.first?.asStructure?.first?.asString else {
            throw TestFailure("no application in the desktop: \(children)")
        }
        return name
    }
}
