import Foundation
import Testing

/// The layering docs/HACKING.md promises (the map of the package), checked on the sources themselves: C stays behind DBusKit,
/// and SnapCore stays pure Swift.
@Suite("Layering")
struct LayeringTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources").path

    /// Every Swift file under Sources, with its path relative to Sources.
    static func swiftFiles() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources))
        var files: [(String, String)] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            files.append((path, try String(contentsOfFile: sources + "/" + path, encoding: .utf8)))
        }
        return files
    }

    static func imports(_ module: String, _ text: String) -> Bool {
        text.split(separator: "\n").contains { line in
            let words = line.split(separator: " ")
            return words.last == Substring(module) && words.contains("import")
        }
    }

    @Test(
        "only DBusKit imports libdbus (and the benchmark's client, which must not be the code it measures)"
    )
    func libdbusContained() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 50, "found only \(files.count) files under \(Self.sources)")
        let importers = files.filter { Self.imports("CDBus", $0.text) }.map(\.path)
        let outside = importers.filter {
            !$0.hasPrefix("DBusKit/") && $0 != "snapsize-bench/BusClient.swift"
        }
        #expect(outside.isEmpty, "CDBus imported outside DBusKit: \(outside)")
        #expect(importers.contains { $0.hasPrefix("DBusKit/") })
        for file in files where file.path.hasPrefix("DBusKit/") && Self.imports("CDBus", file.text) {
            #expect(
                file.text.contains("internal import CDBus"),
                "\(file.path) must use `internal import CDBus`")
        }
    }

    @Test("SnapCore is pure Swift: no Foundation, no C")
    func corePure() throws {
        let core = try Self.swiftFiles().filter { $0.path.hasPrefix("SnapCore/") }
        #expect(!core.isEmpty)
        for file in core {
            for module in ["Foundation", "Glibc", "CDBus", "CAtspi", "Dispatch"] {
                #expect(!Self.imports(module, file.text), "\(file.path) imports \(module)")
            }
        }
    }

    @Test("gettext stays behind SnapTexts, and nothing the daemon links imports Foundation")
    func wordsContained() throws {
        let files = try Self.swiftFiles()
        let intl = files.filter { Self.imports("CIntl", $0.text) }.map(\.path)
        #expect(
            !intl.isEmpty && intl.allSatisfy { $0.hasPrefix("SnapTexts/") },
            "CIntl imported outside SnapTexts: \(intl)")
        for file in files where Self.imports("CIntl", file.text) {
            #expect(
                file.text.contains("internal import CIntl"),
                "\(file.path) must use `internal import CIntl`")
        }
        // snapsized's modules (Package.swift): no Foundation, so it stays small and quick to start.
        let daemonModules = [
            "snapsized/", "SnapService/", "SnapTexts/", "SnapSettings/", "SnapCore/", "AtSpi/",
            "DBusKit/",
            "SizeSelectorContract/", "SystemCalls/"
        ]
        for file in files where daemonModules.contains(where: file.path.hasPrefix) {
            #expect(
                !Self.imports("Foundation", file.text),
                "\(file.path) imports Foundation, which snapsized would link")
        }
    }

    @Test("GTK stays in the panel: only SnapPanel imports CGtk and GtkShim, and the panel no libdbus")
    func gtkContained() throws {
        let files = try Self.swiftFiles()
        let importers = files.filter {
            Self.imports("CGtk", $0.text) || Self.imports("GtkShim", $0.text)
        }.map(\.path)
        #expect(
            !importers.isEmpty && importers.allSatisfy { $0.hasPrefix("SnapPanel/") },
            "GTK imported outside SnapPanel: \(importers)")
        for file in files
        where file.path.hasPrefix("SnapPanel/") || file.path.hasPrefix("snapsize-panel/") {
            #expect(
                !Self.imports("CDBus", file.text), "\(file.path) imports libdbus: the panel talks GDBus")
        }
    }

    @Test(
        "the file calls that make data durable go through the SystemCalls seam, where tests can make them fail"
    )
    func fileCallsThroughTheSeam() throws {
        let files = try Self.swiftFiles()
        let calls = ["fsync", "rename", "link", "unlink", "fchmod", "mkdir", "lstat"]
        var direct: [String] = []
        // What ships (test helpers and the benchmark are left to themselves).
        let exempt = ["SystemCalls/", "TestSupport/", "snapsize-bench/"]
        for file in files where !exempt.contains(where: file.path.hasPrefix) {
            for line in file.text.split(separator: "\n")
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for call in calls where line.contains(call + "(") {
                    // `POSIX.fsync(` is the seam; a plain or `Glibc.` call is not.
                    let uses = line.components(separatedBy: call + "(").dropLast()
                    if uses.contains(where: {
                        !$0.hasSuffix("POSIX.") && !($0.last.map { $0.isLetter || $0 == "_" } ?? false)
                    }) {
                        direct.append("\(file.path): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(direct.isEmpty, "direct POSIX file calls: \(direct)")
        #expect(files.contains { $0.path == "SystemCalls/POSIX.swift" })
    }
}
