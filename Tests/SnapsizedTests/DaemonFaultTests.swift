import Foundation
import Synchronization
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport
@testable import SnapService

/// Crashes, bus loss and load, against the real daemon on a private bus.
@Suite("Reliability: faults and load", .serialized)
struct DaemonFaultTests {
    @Test(
        "kill -9 during a burst of commits: the restored size is the last acknowledged one (or the one in flight)"
    )
    func crashSafety() throws {
        let sizes: [Int32] = [20, 40, 60, 80, 100]
        let rounds = stressing ? 50 : 5
        var survived = 0
        for round in 0..<rounds {
            let fixture = try DaemonFixture()
            guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
            let client = try fixture.client()
            let delay = useconds_t(Int.random(in: 5_000...60_000))
            let killer = Thread {
                usleep(delay); kill(pid, SIGKILL)
            }
            killer.start()
            var acknowledged: Int32?
            var inFlight: Int32?
            var calls = 0
            while calls < 1_000_000 {
                let size = sizes[calls % sizes.count]
                inFlight = size
                do {
                    let reply = try client.call("SetSize", [.int32(size)])
                    acknowledged = reply.last?.asInt32
                    #expect(acknowledged == size)
                } catch {
                    break
                }
                calls += 1
            }
            fixture.stop()
            // Never without a valid record once written: either no file yet, or a valid slot with an allowed size.
            if FileManager.default.fileExists(atPath: fixture.stateFile) {
                let saved = savedSize(fixture.stateFile)
                #expect(
                    saved.map { sizes.contains(Int32($0)) } == true,
                    "round \(round): state file holds \(String(describing: saved))")
            }
            try fixture.start()
            let restored = try fixture.client().property("SelectedSize").asInt32
            let expected = [acknowledged ?? 60, inFlight ?? 60]
            #expect(
                expected.contains(restored ?? -1),
                "round \(round): restored \(restored.map(String.init) ?? "nil") after \(calls) acknowledged calls; expected \(expected)"
            )
            survived += 1
        }
        print("crash safety: \(survived) kill -9 rounds survived")
    }

    @Test("the session bus dies: snapsized exits 75")
    func busDies() throws {
        let fixture = try DaemonFixture()
        guard let daemon = fixture.daemon else { throw TestFailure("no daemon") }
        let killed = Date()
        fixture.bus.kill()
        #expect(waitUntil(timeout: 10, interval: 0.002) { !daemon.isRunning })
        let elapsed = Date().timeIntervalSince(killed)
        #expect(daemon.wait() == 75)
        print("bus loss: snapsized exited \(Int(elapsed * 1000)) ms after the session bus was killed")
    }

    @Test("an idle daemon does not wake up")
    func idle() throws {
        let fixture = try DaemonFixture()
        guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
        _ = try fixture.client().call("Increment")
        usleep(200_000)
        let before = try contextSwitches(pid)
        usleep(1_000_000)
        let after = try contextSwitches(pid)
        #expect(after - before == 0, "the idle daemon woke \(after - before) times in 1 s")
    }

    @Test("32 clients at once: every call answered, only documented refusals, state consistent, no leak")
    func load() throws {
        let clients = 32
        let callsEach = stressing ? 1_000 : 150
        let fixture = try DaemonFixture()
        guard let pid = fixture.daemon?.pid else { throw TestFailure("no daemon") }
        let address = fixture.bus.address
        let watcher = try fixture.client()
        watcher.listen()
        // Warm up, so that lazily grown buffers do not count as a leak.
        try hammer(address: address, calls: 500, seed: 1)
        watcher.settle(0.2)
        let rssBefore = try residentKiB(pid)

        let finished = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let errorCounts = Mutex<[String: Int]>([:])
        for worker in 0..<clients {
            Thread {
                do {
                    let counts = try hammer(address: address, calls: callsEach, seed: UInt64(worker + 2))
                    errorCounts.withLock { total in
                        for (name, n) in counts { total[name, default: 0] += n }
                    }
                } catch {
                    failures.withLock { $0.append("client \(worker): \(error)") }
                }
                finished.add(1, ordering: .sequentiallyConsistent)
            }.start()
        }
        #expect(
            watcher.pump(timeout: stressing ? 280 : 100) {
                finished.load(ordering: .sequentiallyConsistent) == clients
            })
        watcher.settle(0.5)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let errors = errorCounts.withLock { $0 }
        #expect(Set(errors.keys).isSubset(of: [ErrorName.previewActive.rawValue]), "errors: \(errors)")

        // The committed stream is in order: each Committed differs from the one before, and the last
        // one is the final state.
        let committed = watcher.committed
        #expect(!committed.isEmpty)
        for (previous, next) in zip(committed, committed.dropFirst()) where previous.0 == next.0 {
            Issue.record("two Committed signals in a row with index \(next.0)")
            break
        }
        let final = try watcher.property("SelectedIndex").asUInt32
        #expect(committed.last?.0 == final)
        for (index, size) in committed { #expect([20, 40, 60, 80, 100][Int(index)] == size) }

        let rssAfter = try residentKiB(pid)
        // AddressSanitizer quarantines freed memory, so RSS says nothing about leaks under it.
        if ProcessInfo.processInfo.environment["SNAPSIZE_SANITIZER"] == nil {
            #expect(rssAfter - rssBefore <= 1024, "RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
        } else {
            print(
                "load: RSS check skipped under the address sanitizer (its quarantine holds freed memory)"
            )
        }
        print(
            "load: \(clients) clients x \(callsEach) calls; refusals \(errors); \(committed.count) Committed signals; "
                + "RSS \(rssBefore) -> \(rssAfter) KiB")
    }
}

/// One client's mixed calls: steps, sets, conflicting previews, property reads. Returns the
/// refusals by name; throws on anything undocumented or unanswered.
@discardableResult
func hammer(address: String, calls: Int, seed: UInt64) throws -> [String: Int] {
    let client = try SelectorClient(address: address)
    var random = SeededRandom(seed: seed)
    var refusals: [String: Int] = [:]
    var previewing = false
    for _ in 0..<calls {
        let member: String
        var arguments: [DBusValue] = []
        switch Int.random(in: 0..<9, using: &random) {
        case 0: member = "Increment"
        case 1: member = "Decrement"
        case 2: member = "StepBy"; arguments = [.int32(Int32.random(in: -3...3, using: &random))]
        case 3: member = "SetIndex"; arguments = [.uint32(UInt32.random(in: 0...4, using: &random))]
        case 4: member = "SetSize"; arguments = [.int32(Int32.random(in: 0...120, using: &random))]
        case 5: member = "Preview"; arguments = [.double(Double.random(in: 0...336, using: &random))]
        case 6:
            member = previewing ? "Commit" : "Preview";
            arguments = [.double(Double.random(in: 0...336, using: &random))]
        case 7: member = previewing ? "Cancel" : "Get"
        default: member = "Get"
        }
        do {
            if member == "Get" {
                _ = try client.property(
                    ["SelectedSize", "ShownIndex", "ValueText", "Previewing"].randomElement(
                        using: &random)!)
            } else {
                let reply = try client.call(member, arguments)
                if reply.count >= 2, let index = reply[0].asUInt32, let size = reply[1].asInt32,
                    [20, 40, 60, 80, 100][Int(index)] != size
                {
                    throw TestFailure("\(member) replied index \(index) with size \(size)")
                }
                if member == "Preview" { previewing = true }
                if member == "Commit" || member == "Cancel" { previewing = false }
            }
        } catch let error as MethodError {
            guard error.name == .previewActive else {
                throw TestFailure("\(member)\(arguments): \(error)")
            }
            refusals[error.name.rawValue, default: 0] += 1
        }
    }
    if previewing { _ = try? client.call("Cancel") }
    return refusals
}

/// Voluntary + involuntary context switches of every thread of a process.
func contextSwitches(_ pid: pid_t) throws -> Int {
    var total = 0
    for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
        let status = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
        for line in status.split(separator: "\n")
        where line.hasPrefix("voluntary_ctxt_switches") || line.hasPrefix("nonvoluntary_ctxt_switches") {
            total += Int(line.filter(\.isNumber)) ?? 0
        }
    }
    return total
}
