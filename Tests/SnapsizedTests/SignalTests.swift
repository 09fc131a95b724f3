import Foundation
import Testing
import SizeSelectorContract
import DBusKit
import TestSupport

/// PropertiesChanged and Committed, received by a second connection: the right values, and
/// nothing when nothing changed.
@Suite("Change announcements")
struct SignalTests {
    @Test("a step announces the committed and shown properties, then Committed")
    func step() throws {
        let fixture = try DaemonFixture()
        let watcher = try fixture.client()
        watcher.listen()
        let actor = try fixture.client()
        _ = try actor.call("Increment")
        #expect(watcher.pump { watcher.committed.count == 1 && watcher.propertiesChanged.count == 2 })
        let changed = watcher.propertiesChanged
        #expect(changed.count == 2)
        // A new client is named by its unique name with the change, and with its process once the bus said.
        #expect(
            changed.first == [
                "SelectedIndex": .uint32(3), "SelectedSize": .int32(80),
                "ShownIndex": .uint32(3), "ShownSize": .int32(80), "ValueText": .string("80 points"),
                "ChangedBy": namedOnly(actor), "CanUndo": .boolean(true),
                "LastChangeKind": .string("step")
            ])
        #expect(changed.last == ["ChangedBy": changedBy(actor)])
        #expect(watcher.committed.first.map { [$0.0 == 3, $0.1 == 80] } == [true, true])
        // PropertiesChanged names the interface it is about.
        let interface = watcher.signals.first { $0.member == "PropertiesChanged" }?.arguments.first
        #expect(interface == .string(interfaceName))
    }

    @Test("nothing is announced when nothing changes")
    func silence() throws {
        let fixture = try DaemonFixture(["--initial", "100"])
        let watcher = try fixture.client()
        watcher.listen()
        let actor = try fixture.client()
        #expect(try actor.call("Increment") == [.uint32(4), .int32(100), .boolean(true)])
        #expect(try actor.call("SetIndex", [.uint32(4)]) == [.uint32(4), .int32(100)])
        #expect(try actor.call("SetSize", [.int32(95)]) == [.uint32(4), .int32(100)])
        #expect(try actor.call("Cancel") == [])
        _ = try? actor.call("SetIndex", [.uint32(9)])
        _ = try actor.call("Preview", [.double(320)])
        _ = try actor.call("Preview", [.double(322)])  // same bucket: no change
        watcher.settle(0.3)
        #expect(watcher.committed.isEmpty)
        // Only the preview opening is announced (Previewing, and who opened it: by its name alone until
        // the bus tells its process, then again); the shown index stayed 4.
        let announced = watcher.propertiesChanged
        #expect(announced.first?["Previewing"] == .boolean(true), "\(announced)")
        #expect(
            announced.allSatisfy { Set($0.keys).isSubset(of: ["Previewing", "ChangedBy"]) },
            "\(announced)")
        #expect(announced.count <= 2 && announced.last?["ChangedBy"] == changedBy(actor), "\(announced)")
    }

    @Test("a preview announces Shown*, ValueText and Previewing, but no commit")
    func preview() throws {
        let fixture = try DaemonFixture()
        let watcher = try fixture.client()
        watcher.listen()
        let actor = try fixture.client()
        #expect(try actor.call("Preview", [.double(90)]) == [.uint32(1), .int32(40)])
        #expect(watcher.pump { watcher.announcements.count == 1 && watcher.announcementsSettled })
        // In one PropertiesChanged, or (when the bus had not said who the actor is before its call)
        // with its unique name alone, completed by one with ChangedBy alone.
        #expect(
            watcher.announcements == [
                [
                    "ShownIndex": .uint32(1), "ShownSize": .int32(40), "ValueText": .string("40 points"),
                    "Previewing": .boolean(true),
                    "ChangedBy": changedBy(actor)
                ]
            ])
        if watcher.propertiesChanged.count == 2 {
            #expect(watcher.propertiesChanged.first?["ChangedBy"] == namedOnly(actor))
        }
        #expect(try actor.property("SelectedSize") == .int32(60))
        #expect(try actor.property("ShownSize") == .int32(40))
        #expect(try actor.call("Commit", [.double(90)]) == [.uint32(1), .int32(40)])
        #expect(watcher.pump { watcher.committed.count == 1 })
        // The same client again: ChangedBy is not repeated.
        #expect(
            watcher.propertiesChanged.last == [
                "SelectedIndex": .uint32(1), "SelectedSize": .int32(40), "Previewing": .boolean(false),
                "CanUndo": .boolean(true),
                "LastChangeKind": .string("commit")
            ])
        #expect(try watcher.property("ChangedBy") == changedBy(actor))
    }

    @Test("ChangedBy names each client once per run of its changes, with its pid and command")
    func changedByClients() throws {
        let fixture = try DaemonFixture()
        let watcher = try fixture.client()
        watcher.listen()
        #expect(
            try watcher.property("ChangedBy") == .structure([.string(""), .uint32(0), .string("")]),
            "no change yet")
        let first = try fixture.client(), second = try fixture.client()
        _ = try first.call("Increment")
        _ = try first.call("Decrement")
        _ = try second.call("Increment")
        #expect(watcher.pump { watcher.committed.count == 3 })
        #expect(watcher.pump { watcher.announcements.count == 3 && watcher.announcementsSettled })
        #expect(
            watcher.announcements.map { $0["ChangedBy"] } == [changedBy(first), nil, changedBy(second)])
        // A client that is not this process, still running when the bus answers: named by its command
        // line. (One that has exited by then, as gdbus call does at once, is named by its pid alone.)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Scripts/pipeline.py").path
        let other = try ChildProcess(
            "/usr/bin/python3",
            [
                script, fixture.bus.address, busName, objectPath.rawValue,
                interfaceName, "Decrement", "1"
            ], environment: fixture.environment)
        defer { other.terminate() }
        #expect(
            watcher.pump {
                watcher.committed.count == 4 && watcher.announcements.count == 4
                    && watcher.announcementsSettled
            })
        let last = watcher.announcements.last?["ChangedBy"]?.asStructure
        #expect(last?[2] == .string("python3 pipeline.py"), "\(String(describing: last))")
        #expect(last?[1] == .uint32(UInt32(other.pid)))
    }
}

/// What the daemon says about `client` before the bus has told it the process: the unique name alone.
func namedOnly(_ client: SelectorClient) -> DBusValue {
    .structure([.string(client.connection.uniqueName), .uint32(0), .string("")])
}

/// What the daemon should say about `client`, a connection of this test process: its unique name,
/// our pid, and our command line as /proc shows it (the program's file name, then its first word
/// that is not an option).
func changedBy(_ client: SelectorClient) -> DBusValue {
    .structure([.string(client.connection.uniqueName), .uint32(UInt32(getpid())), .string(ownCommand)])
}

let ownCommand: String = {
    let arguments = CommandLine.arguments
    var command = URL(fileURLWithPath: arguments[0]).lastPathComponent
    if arguments.count > 1, !arguments[1].hasPrefix("-") {
        command += " " + URL(fileURLWithPath: arguments[1]).lastPathComponent
    }
    return command
}()
