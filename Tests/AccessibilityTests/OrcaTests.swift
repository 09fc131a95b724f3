import Foundation
import Testing
import DBusKit
import TestSupport

let orcaPrefsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Orca").path

/// Real Orca 43 (Debian 12) under Xvfb, speaking into a capture file.
@Suite("Real Orca speaks the slider")
struct OrcaTests {
    @Test("silent before anyone asks for focus; after Focus(): the slider, then each change")
    func speech() throws {
        let display = try VirtualDisplay()
        let fixture = try SliderFixture(sessionExtras: ["DISPLAY": display.display])
        let orca = try ScreenReader(prefsSource: orcaPrefsDirectory, environment: fixture.stack.environment,
                                    workDirectory: fixture.bus.directory)
        defer {
            print("Orca transcript:\n" + orca.transcript)
            orca.stop()
        }
        let ignored = "DEFAULT: Source != locusOfFocus"
        func ignoredCount() -> Int { orca.debugLog.components(separatedBy: ignored).count - 1 }

        // Before anyone asked: a change reaches Orca (it logs that it ignores it) but is not spoken.
        try fixture.selector("Increment")
        #expect(waitUntil(timeout: 10) { ignoredCount() >= 1 }, "Orca saw the value change")
        try fixture.selector("SetIndex", [.uint32(2)])
        #expect(waitUntil(timeout: 10) { ignoredCount() >= 2 }, "Orca saw the second change")
        #expect(!orca.speech.contains { $0.contains("points") || $0.contains("Circle size") }, "\(orca.speech)")
        // Orca logs each received event as "EVENT MANAGER: <type> for <source> in <app> (...)".
        let focusEvent = "EVENT MANAGER: object:state-changed:focused for"
        #expect(!orca.debugLog.contains(focusEvent), "the slider never claimed focus on its own")
        #expect(!(try fixture.python("inspect_slider.py").object("slider").strings("states").contains("focused")))

        // A person asks (D-Bus Focus): Orca presents the slider, then speaks every change.
        try fixture.selector("Focus")
        #expect(waitUntil(timeout: 10) { orca.speech.contains("Circle size horizontal slider 60 points.") },
                "\(orca.speech)")
        #expect(orca.debugLog.contains(focusEvent), "the focus check above looks at the right log lines")
        try fixture.selector("Increment")
        #expect(waitUntil(timeout: 10) { orca.speech.contains("80 points") }, "\(orca.speech)")
        let spoken = orca.speech
        let focusLine = spoken.firstIndex(of: "Circle size horizontal slider 60 points.")
        let changeLine = spoken.firstIndex(of: "80 points")
        #expect(focusLine != nil && changeLine != nil && focusLine! < changeLine!, "\(spoken)")
    }
}
