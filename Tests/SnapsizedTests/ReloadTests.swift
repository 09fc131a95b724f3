import Foundation
import Testing
import SizeSelectorContract
import DBusKit
import SnapCore
@testable import SnapService
import TestSupport

/// SIGHUP with a new list, track or layout, through the real daemon on a private bus: real
/// clients (gdbus, dbus-monitor) see the change, the state file holds the mapped size.
@Suite("Reload: a new list, track or layout", .serialized)
struct ReloadTests {
    /// A daemon started with `text` as its default config file.
    private func daemon(config text: String) throws -> (DaemonFixture, ChildProcess) {
        let fixture = try DaemonFixture(startDaemon: false)
        try fixture.writeConfig(text)
        try fixture.start()
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        return (fixture, daemon)
    }

    @Test(
        "new sizes and track width: applied live, the committed size mapped as the core maps it, announced, saved, kept through a restart"
    )
    func newList() throws {
        let (fixture, daemon) = try daemon(config: "sizes = 20,40,60,80,100\n")
        let client = try fixture.client()
        _ = try client.call("Increment")
        #expect(try client.call("SetSize", [.int32(60)]) == [.uint32(2), .int32(60)])
        #expect(savedSize(fixture.stateFile) == 60)
        let watcher = try fixture.client()
        watcher.listen()
        let monitor = try ChildProcess(
            "dbus-monitor",
            [
                "--address", fixture.bus.address,
                "type='signal',sender='\(busName)'"
            ],
            environment: fixture.environment)
        defer { monitor.terminate() }
        #expect(
            waitUntil(timeout: 5) {
                monitor.stdout.contains("NameAcquired") || monitor.stdout.contains("NameLost")
            },
            "dbus-monitor is watching: \(monitor.stdout) \(monitor.stderr)")
        let sizes = try SizeSet([10, 30, 50, 70])
        let index = sizes.index(nearestTo: 60), size = sizes[index]  // the core's rule: 70 (ties to the larger)
        #expect(
            try fixture.reload(config: "sizes = 10,30,50,70\ntrack-width = 200\n"), "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains(
                "applied sizes, track-width/track-inset (committed size 60 -> \(size))"),
            "\(daemon.stderr)")
        #expect(watcher.pump { !watcher.committed.isEmpty }, "\(daemon.stderr)")
        let texts = DBusValue.array(
            elementSignature: "s", [10, 30, 50, 70].map { .string("\($0) points") })
        #expect(
            watcher.propertiesChanged == [
                [
                    "Sizes": .array(elementSignature: "i", [10, 30, 50, 70].map { .int32($0) }),
                    "TrackWidth": .double(200),
                    "ValueTexts": texts, "SelectedIndex": .uint32(UInt32(index)),
                    "ShownIndex": .uint32(UInt32(index)),
                    "SelectedSize": .int32(Int32(size)), "ShownSize": .int32(Int32(size)),
                    "ValueText": .string("\(size) points"),
                    "ChangedBy": .structure([.string(""), .uint32(0), .string("")]),
                    "LastChangeKind": .string("reload")
                ]
            ])
        #expect(watcher.committed.map { [$0.0, UInt32($0.1)] } == [[UInt32(index), UInt32(size)]])
        // dbus-monitor, a real client, saw both.
        #expect(
            waitUntil(timeout: 5) { monitor.stdout.contains("member=Committed") }, "\(monitor.stdout)")
        #expect(
            monitor.stdout.contains("member=PropertiesChanged") && monitor.stdout.contains("\"Sizes\""),
            "\(monitor.stdout)")
        // gdbus and dbus-send, real clients, read the new values.
        let read = try fixture.gdbusCall(
            "org.freedesktop.DBus.Properties.GetAll", "org.snapsize.SizeSelector1")
        #expect(
            read.stdout.contains("'Sizes': <[10, 30, 50, 70]>")
                && read.stdout.contains("'TrackWidth': <200.0>"), "\(read)")
        #expect(read.stdout.contains("'SelectedSize': <\(size)>"), "\(read)")
        let sent = try fixture.dbusSend(
            "org.freedesktop.DBus.Properties.Get", "string:org.snapsize.SizeSelector1",
            "string:SelectedIndex")
        #expect(sent.stdout.contains("uint32 \(index)"), "\(sent)")
        // Saved: the state file holds the new size, and a restart comes back at it (with a list
        // where the old 60 is allowed too, so only the saved size can give 70).
        #expect(savedSize(fixture.stateFile) == size)
        fixture.stop()
        try fixture.start(["--sizes", "10,30,50,60,70"])
        #expect(try fixture.client().property("SelectedSize") == .int32(Int32(size)))
    }

    @Test(
        "a preview open at SIGHUP ends as a cancel; a broken file keeps the list; a new layout alone is announced"
    )
    func previewAndBrokenFile() throws {
        let (fixture, daemon) = try daemon(config: "")
        let watcher = try fixture.client()
        watcher.listen()
        // snapsizectl watch prints a line for each move of the selection, none for a new layout alone.
        let watch = try ChildProcess(
            productPath("snapsizectl")!, ["watch", "--count", "5"], environment: fixture.environment)
        defer { watch.terminate() }
        #expect(waitUntil(timeout: 10) { watch.stderr.contains("Watching") }, "\(watch.stderr)")
        let owner = try fixture.client()
        #expect(try owner.call("Preview", [.double(324)]) == [.uint32(4), .int32(100)])
        // The preview, with ChangedBy naming the owner's process.
        #expect(watcher.pump { watcher.announcements.count == 1 && watcher.announcementsSettled })
        #expect(try fixture.reload(config: "sizes = 20,60,100\n"), "\(daemon.stderr)")
        #expect(watcher.pump { watcher.announcements.count == 3 }, "\(daemon.stderr)")
        let changes = watcher.announcements
        try #require(changes.count == 3, "\(changes)")
        let cancelled = changes[1]
        #expect(
            cancelled["Previewing"] == .boolean(false) && cancelled["ShownIndex"] == .uint32(2),
            "\(cancelled)")
        #expect(
            changes[2]["Sizes"] != nil && changes[2]["SelectedSize"] == nil,
            "60 is still allowed: \(changes[2])")
        #expect(changes[2]["SelectedIndex"] == .uint32(1))
        #expect(try owner.property("Previewing") == .boolean(false))
        #expect(
            try owner.call("Increment") == [.uint32(2), .int32(100), .boolean(false)],
            "no preview holds the selection")
        // A broken file: nothing changes; only ConfigProblems is announced, saying why.
        watcher.settle(0.2)
        var heard = watcher.signals.count
        #expect(try fixture.reload(config: "sizes = 20,10\n"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("running settings stay"), "\(daemon.stderr)")
        watcher.settle(0.3)
        #expect(
            watcher.signals.count == heard + 1
                && watcher.propertiesChanged.last.map { Array($0.keys) } == ["ConfigProblems"],
            "\(watcher.propertiesChanged)")
        heard = watcher.signals.count
        #expect(
            try owner.property("Sizes")
                == .array(elementSignature: "i", [20, 60, 100].map { .int32($0) }))
        // A new layout alone: announced, the selection untouched.
        #expect(try fixture.reload(config: "sizes = 20,60,100\nlayout = numeric\n"), "\(daemon.stderr)")
        #expect(watcher.pump { watcher.signals.count > heard })
        watcher.settle(0.2)
        #expect(watcher.propertiesChanged.last == ["Layout": .string("numeric")])
        #expect(
            watcher.committed.map { [$0.0, UInt32($0.1)] } == [[1, 60], [2, 100]],
            "the reload's new index, then the Increment")
        #expect(try owner.call("Decrement") == [.uint32(1), .int32(60), .boolean(false)])
        #expect(waitUntil(timeout: 10) { !watch.isRunning }, "\(watch.stdout)")
        #expect(
            watch.stdout
                == "preview 4 100 100 points\ncancel 2 60 60 points\ncommit 1 60 60 points\ncommit 2 100 100 points\n"
                + "commit 1 60 60 points\n")
    }

    @Test(
        "a new list whose committed size cannot be saved is refused and logged; the running list stays until it can"
    )
    func unsavable() throws {
        let (fixture, daemon) = try daemon(config: "")
        let client = try fixture.client()
        _ = try client.call("Increment")
        _ = try client.call("Decrement")
        #expect(savedSize(fixture.stateFile) == 60)
        let watcher = try fixture.client()
        watcher.listen()
        // The state cannot be saved: its name is taken by a folder, so the rename over it fails (even as root).
        try FileManager.default.removeItem(atPath: fixture.stateFile)
        try FileManager.default.createDirectory(
            atPath: fixture.stateFile, withIntermediateDirectories: false)
        #expect(try fixture.reload(config: "sizes = 10,30,50,70\nlabel = Brush\n"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("sizes not applied, the running ones stay"), "\(daemon.stderr)")
        #expect(
            daemon.stderr.contains("applied label/unit"),
            "the other options still apply: \(daemon.stderr)")
        #expect(watcher.pump { !watcher.propertiesChanged.isEmpty })
        watcher.settle(0.3)
        // The words, and that saving fails now (StateSaving); nothing of the list.
        #expect(
            watcher.propertiesChanged.filter { $0["StateSaving"] == nil } == [
                ["Label": .string("Brush")]
            ],
            "only the words were announced: \(watcher.propertiesChanged)")
        #expect(
            watcher.propertiesChanged.contains {
                $0["StateSaving"]?.asString?.hasPrefix("failing: cannot rename") == true
            },
            "\(watcher.propertiesChanged)")
        #expect(
            try client.property("Sizes")
                == .array(elementSignature: "i", [20, 40, 60, 80, 100].map { .int32($0) }))
        #expect(try client.property("SelectedSize") == .int32(60))
        // The disk is back: the next reload applies the list.
        try FileManager.default.removeItem(atPath: fixture.stateFile)
        #expect(try fixture.reload(config: "sizes = 10,30,50,70\nlabel = Brush\n"), "\(daemon.stderr)")
        #expect(watcher.pump { !watcher.committed.isEmpty }, "\(daemon.stderr)")
        #expect(try client.property("SelectedSize") == .int32(70))
        #expect(savedSize(fixture.stateFile) == 70)
    }
}
