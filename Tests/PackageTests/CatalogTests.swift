import Foundation
import Testing
import TestSupport

/// po/ is complete: the template is what the sources give, every catalog translates every msgid of it
/// (none fuzzy, each with its language's number of plural forms), and `msgfmt --check` is content.
@Suite("Message catalogs")
struct CatalogTests {
    static let script = URL(fileURLWithPath: poDirectory).deletingLastPathComponent().appendingPathComponent("scripts/po.py").path

    @Test("po/snapsize.pot is current and pt_BR, zh_CN, ar and ko translate all of it (scripts/po.py check)")
    func complete() throws {
        let result = try run("/usr/bin/python3", [Self.script, "check"], environment: ProcessInfo.processInfo.environment,
                             timeout: 60)
        #expect(result.status == 0, "run `make pot`, then translate what it added:\n\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok: "), "\(result.stdout)")
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: poDirectory).filter { $0.hasSuffix(".po") }.sorted()
        #expect(catalogs == ["ar.po", "ko.po", "pt_BR.po", "zh_CN.po"])
    }

    @Test("each catalog compiles with msgfmt --check")
    func compiles() throws {
        #expect(try compileCatalogs() == ["ar", "ko", "pt_BR", "zh_CN"])
    }
}
