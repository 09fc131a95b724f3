import Foundation
import Testing
import DBusKit
import TestSupport

/// A crowd of silent clients on each bus: each asks for every signal (AddMatch "type='signal'") and
/// pipelines calls that change the size (session) or ask for focus (accessibility bus) without ever
/// reading. A well-behaved client on each bus is still answered, and the daemon's memory comes back.
@Suite("Reliability: a crowd of silent clients", .serialized)
struct CrowdFaultTests {
    @Test(
        "8 (long form: 32) silent, subscribed, pipelining clients on each bus: memory bounded and back within 1 MiB after they leave; another client on each bus answered within 1 s (the bus allowing)"
    )
    func silentCrowd() throws {
        let desktop = try BacklogFaultTests.Desktop()
        _ = try desktop.selector("Increment", timeout: 10_000)
        _ = try desktop.slider("org.a11y.atspi.Accessible", "GetAttributes", timeout: 10_000)
        Thread.sleep(forTimeInterval: 0.5)
        let idle = desktop.memory
        let clients = stressing ? 32 : 8
        let seconds = stressing ? 40.0 : 4.0
        for _ in 0..<clients {
            try desktop.pipeline(
                address: desktop.bus.address, destination: selectorName, path: selectorPath.rawValue,
                interface: selectorName, members: "Increment,Decrement", count: 10_000_000,
                waitForAll: false, subscribe: true)
            try desktop.pipeline(
                address: desktop.stack.address, destination: desktop.app, path: crowdSliderPath.rawValue,
                interface: "org.a11y.atspi.Component", members: "GrabFocus,GetSize", count: 10_000_000,
                waitForAll: false, subscribe: true)
        }
        var asked = (a11y: 0, session: 0), answered = (a11y: 0, session: 0)
        var slowest = (a11y: 0.0, session: 0.0)
        var outcomes: [String] = []
        var peak = idle
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            Thread.sleep(forTimeInterval: 0.5)
            var at = Date()
            asked.session += 1
            do {
                _ = try desktop.selector(
                    asked.session % 2 == 0 ? "Decrement" : "Increment", timeout: crowdAnswerBound)
                answered.session += 1
            } catch {
                outcomes.append("session: \(error)")
            }
            slowest.session = max(slowest.session, Date().timeIntervalSince(at))
            at = Date()
            asked.a11y += 1
            do {
                try desktop.slider(
                    "org.a11y.atspi.Accessible", "GetAttributes", timeout: crowdAnswerBound)
                answered.a11y += 1
            } catch {
                outcomes.append("accessibility: \(error)")
            }
            slowest.a11y = max(slowest.a11y, Date().timeIntervalSince(at))
            let now = desktop.memory
            peak = (max(peak.rss, now.rss), max(peak.pss, now.pss), max(peak.anonymous, now.anonymous))
        }
        desktop.stopPipelines()
        // Once they have left: the well-behaved clients again, then the memory, given a moment to settle.
        _ = try desktop.selector("Increment", timeout: 30_000)
        _ = try desktop.slider("org.a11y.atspi.Accessible", "GetAttributes", timeout: 30_000)
        var after = desktop.memory
        _ = waitUntil(timeout: 10, interval: 0.5) {
            after = desktop.memory
            return after.pss - idle.pss <= 1024
        }
        print(
            "silent crowd of \(clients) + \(clients) for \(Int(seconds)) s: answered within 1 s \(answered.session) of "
                + "\(asked.session) session calls (slowest \(Int(slowest.session * 1000)) ms), \(answered.a11y) of \(asked.a11y) "
                + "AT-SPI calls (slowest \(Int(slowest.a11y * 1000)) ms); Pss \(idle.pss) -> peak \(peak.pss) -> \(after.pss) KiB, "
                + "Pss_Anon \(idle.anonymous) -> \(peak.anonymous) -> \(after.anonymous) KiB")
        // The memory is the daemon's own: back within 1 MiB (issue 33). The answers within a second
        // are the bus's: the same crowd against a service that does nothing but answer
        // (Tests/Scripts/crowd-control.py, responder.c) leaves its well-behaved client unanswered too,
        // on dbus-daemon 1.14 and on dbus-broker 33 (Benchmarks/PERFORMANCE-LOG.md, "A crowd of
        // silent clients"): dbus-daemon walks its whole list of calls awaiting a reply for every call
        // it routes, and that list grows towards N x max_replies_per_connection.
        withKnownIssue(
            "a crowd of pipelining clients slows the bus itself, whatever the service (issue 33)",
            isIntermittent: true
        ) {
            #expect(
                answered.session == asked.session,
                "\(answered.session) of \(asked.session) session calls answered: \(outcomes)")
            #expect(
                answered.a11y == asked.a11y,
                "\(answered.a11y) of \(asked.a11y) AT-SPI calls answered: \(outcomes)")
        }
        // What holds: bounded while they pipeline, every well-behaved call answered once they left
        // (above), and the memory back.
        if ProcessInfo.processInfo.environment["SNAPSIZE_SANITIZER"] == nil {
            #expect(
                peak.anonymous - idle.anonymous <= 8 * 1024,
                "Pss_Anon \(idle.anonymous) KiB idle, \(peak.anonymous) KiB at the peak")
            #expect(
                after.pss - idle.pss <= 1024,
                "Pss \(idle.pss) KiB before, \(after.pss) KiB after the crowd left")
        }
    }
}

/// How long a well-behaved client waits for an answer while the crowd pipelines (issue 33: a second).
private let crowdAnswerBound: Int32 = 1000

private let crowdSliderPath = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!
