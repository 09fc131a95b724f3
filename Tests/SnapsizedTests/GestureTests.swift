import Foundation
import Testing
import DBusKit
import TestSupport

extension DaemonTests {
    @Suite("drag and watch")
    struct Gestures {
        @Test(
            "drag with a release between ticks commits the size nearest the release x, not the last preview"
        )
        func dragRelease() throws {
            let fixture = try DaemonFixture()
            // 125 lies between the ticks of 40 (x 90) and 60 (x 168), nearer 40; the last preview was 100.
            let result = try fixture.ctl(["drag", "30", "200", "300", "--release", "125"])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err == "")
            #expect(result.out == "preview 20\npreview 60\npreview 100\ncommit 40\n")
            #expect(try fixture.ctl(["get"]).out == "40\n")
            // 140 is nearer 60 (x 168) than 40 (x 90).
            let json = try fixture.ctl(["drag", "12", "--release", "140", "--json"])
            #expect(json.status == 0)
            let object = try parseJSONObject(json.out)
            let previews = try #require(object["previews"] as? [[String: Any]])
            #expect(previews.count == 1)
            #expect(previews.first?["x"] as? Double == 12)
            #expect(previews.first?["index"] as? Int == 0)
            #expect(previews.first?["size"] as? Int == 20)
            #expect(object["result"] as? String == "commit")
            #expect(object["x"] as? Double == 140)
            #expect(object["index"] as? Int == 2)
            #expect(object["size"] as? Int == 60)
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(status["previewing"] as? Bool == false)
            #expect(status["selectedSize"] as? Int == 60)
        }

        @Test("drag --cancel leaves the committed size; a negative x is a value, not an option")
        func dragCancel() throws {
            let fixture = try DaemonFixture()
            let result = try fixture.ctl(["drag", "-10", "324", "--cancel"])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == "preview 20\npreview 100\ncancel 60\n")
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(status["previewing"] as? Bool == false)
            #expect(status["selectedSize"] as? Int == 60)
        }

        @Test("Ctrl-C during a slow drag cancels the preview: exit 130, committed size unchanged")
        func dragInterrupted() throws {
            let fixture = try DaemonFixture()
            let drag = try ChildProcess(
                productPath("snapsizectl")!,
                ["drag", "324", "246", "--release", "324", "--interval", "30"],
                environment: fixture.environment)
            #expect(waitUntil(timeout: 10) { drag.stdout.contains("preview 100") }, "\(drag.stderr)")
            #expect(
                try parseJSONObject(try fixture.ctl(["status", "--json"]).out)["previewing"] as? Bool
                    == true)
            kill(drag.pid, SIGINT)
            #expect(drag.wait() == 130)
            #expect(drag.stdout == "preview 100\ncancel 60\n")
            let status = try parseJSONObject(try fixture.ctl(["status", "--json"]).out)
            #expect(status["previewing"] as? Bool == false)
            #expect(status["selectedSize"] as? Int == 60)
        }

        @Test("watch --json receives another client's preview, commit and cancel, in order")
        func watchJSON() throws {
            let fixture = try DaemonFixture()
            let watch = try ChildProcess(
                productPath("snapsizectl")!, ["watch", "--json"], environment: fixture.environment)
            #expect(
                waitUntil(timeout: 10) { watch.stderr.contains("Watching Circle size, now 60 points") },
                "\(watch.stderr)")

            let other = try fixture.client()
            try other.call("Preview", [.double(tick[4])])  // preview 100
            try other.call("Commit", [.double(tick[1])])  // commit 40, from the release x
            try other.call("Preview", [.double(tick[3])])  // preview 80
            try other.call("Cancel")  // back to 40
            try other.call("Increment")  // commit 60

            #expect(
                waitUntil(timeout: 10) { watch.stdout.split(separator: "\n").count >= 5 },
                "\(watch.stdout)")
            kill(watch.pid, SIGINT)
            #expect(watch.wait() == 0)
            let lines = watch.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(lines)")
            let expected: [(String, Int, Int, String, Int)] = [
                ("preview", 4, 100, "100 points", 60), ("commit", 1, 40, "40 points", 40),
                ("preview", 3, 80, "80 points", 40), ("cancel", 1, 40, "40 points", 40),
                ("commit", 2, 60, "60 points", 60)
            ]
            for (line, (phase, index, size, text, committed)) in zip(lines, expected) {
                let object = try parseJSONObject(line)
                #expect(object["phase"] as? String == phase, "\(line)")
                #expect(object["index"] as? Int == index, "\(line)")
                #expect(object["size"] as? Int == size, "\(line)")
                #expect(object["valueText"] as? String == text, "\(line)")
                #expect(object["selectedSize"] as? Int == committed, "\(line)")
            }
        }

        @Test(
            "watch plain: one line per change; --count ends it; a client leaving mid-preview shows as cancel"
        )
        func watchPlain() throws {
            let fixture = try DaemonFixture()
            let watch = try ChildProcess(
                productPath("snapsizectl")!, ["watch", "--count", "3"], environment: fixture.environment)
            #expect(waitUntil(timeout: 10) { watch.stderr.contains("Watching") })
            do {
                let other = try fixture.client()
                try other.call("Preview", [.double(tick[0])])
                other.close()  // leaves the bus: the daemon ends its preview
            }
            #expect(try fixture.ctl(["dec"]).status == 0)
            #expect(waitUntil(timeout: 10) { !watch.isRunning })
            #expect(watch.wait() == 0)
            #expect(
                watch.stdout == "preview 0 20 20 points\ncancel 2 60 60 points\ncommit 1 40 40 points\n")
        }
    }
}
