import Foundation
import Testing
import DBusKit
import TestSupport

/// AT-SPI actions and value writes whose commit cannot be saved: the reply says what happened (an
/// action answers false; a write, which libatspi must never get an error for, leaves the value
/// unchanged), and the log says why, at most one line per 10 s.
@Suite("Reliability: AT-SPI changes that cannot be saved", .serialized)
struct UnsavableFaultTests {
    @Test(
        "DoAction while the state cannot be saved answers false, the value stays, the refusal is logged (rate-limited)"
    )
    func unsavableAction() throws {
        let desktop = try BacklogFaultTests.Desktop()
        func action(_ index: Int32) throws -> Bool? {
            try desktop.slider("org.a11y.atspi.Action", "DoAction", [.int32(index)], timeout: 5000)
                .first?.asBool
        }
        func value() throws -> Double? {
            try desktop.slider(
                "org.freedesktop.DBus.Properties", "Get",
                [
                    .string("org.a11y.atspi.Value"),
                    .string("CurrentValue")
                ]
            ).first?.asVariant?.asDouble
        }
        #expect(try action(0) == true)
        #expect(try value() == 3)
        // The state cannot be saved: its name is taken by a folder, so the rename over it fails (even as root).
        try? FileManager.default.removeItem(atPath: desktop.stateFile)
        try FileManager.default.createDirectory(
            atPath: desktop.stateFile, withIntermediateDirectories: false)
        #expect(try action(1) == false, "the step was undone: the reply must not say it happened")
        #expect(try value() == 3)
        #expect(throws: MethodError.self, "the D-Bus side refuses the same change") {
            try desktop.selector("Decrement")
        }
        // A value write that cannot be saved: answered plainly (libatspi aborts on an error), logged.
        _ = try desktop.slider(
            "org.freedesktop.DBus.Properties", "Set",
            [
                .string("org.a11y.atspi.Value"),
                .string("CurrentValue"), .variant(.double(0))
            ])
        #expect(try value() == 3)
        for number in 0..<200 { _ = try action(Int32(number % 2)) }
        let log = desktop.daemon.stderr
        let actions = log.split(separator: "\n").filter {
            $0.contains("refused an accessibility action")
        }
        #expect(!actions.isEmpty, "the refused action is logged: \(log.suffix(800))")
        #expect(
            actions.count <= 2, "\(actions.count) lines for 201 refused actions: \(actions.prefix(5))")
        #expect(
            log.contains("refused an accessibility value write"),
            "the refused write is logged: \(log.suffix(800))")
        // Savable again: the next action works and says so.
        try FileManager.default.removeItem(atPath: desktop.stateFile)
        #expect(try action(1) == true)
        #expect(try value() == 2)
    }
}
