import Foundation
import Testing
import TestSupport

/// po/ is complete: the template is what the sources give, every catalog translates every msgid of it
/// (none fuzzy, each with its language's number of plural forms), and `msgfmt --check` is content.
@Suite("Message catalogs")
struct CatalogTests {
    static let script = URL(fileURLWithPath: poDirectory).deletingLastPathComponent()
        .appendingPathComponent("scripts/po.py").path
    /// The languages of the article snapsize comes from, besides English (the msgids): a catalog
    /// deleted by mistake fails here, while a new one (`scripts/po.py init LANG`) needs no edit.
    static let article = ["ar", "ko", "pt_BR", "zh_CN"]

    /// The languages of po/*.po, as the Makefile's LANGUAGES finds them.
    static func languages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: poDirectory).filter { $0.hasSuffix(".po") }
            .map { String($0.dropLast(3)) }.sorted()
    }

    @Test(
        "po/snapsize.pot is current and every po/*.po, the article's four among them, translates all of it (scripts/po.py check)"
    )
    func complete() throws {
        let result = try run(
            "/usr/bin/python3", [Self.script, "check"], environment: ProcessInfo.processInfo.environment,
            timeout: 60)
        #expect(
            result.status == 0,
            "run `make pot`, then translate what it added:\n\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok: "), "\(result.stdout)")
        let languages = try Self.languages()
        #expect(
            Set(Self.article).isSubset(of: languages),
            "po/ lacks \(Set(Self.article).subtracting(languages).sorted())")
    }

    @Test("each catalog compiles with msgfmt --check")
    func compiles() throws {
        #expect(try compileCatalogs() == Self.languages())
    }

    @Test(
        "scripts/po.py init LANG starts a catalog with the language's plural forms, and refuses one that exists"
    )
    func initStartsCatalog() throws {
        let folder = NSTemporaryDirectory() + "snapsize-po-init-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for sub in ["po", "scripts"] {
            try FileManager.default.createDirectory(
                atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Self.script, toPath: folder + "/scripts/po.py")
        try FileManager.default.copyItem(
            atPath: poDirectory + "/snapsize.pot", toPath: folder + "/po/snapsize.pot")
        let environment = ProcessInfo.processInfo.environment
        let started = try run(
            "/usr/bin/python3", [folder + "/scripts/po.py", "init", "fr"], environment: environment,
            timeout: 60)
        #expect(started.status == 0, "\(started.stdout)\(started.stderr)")
        let catalog = try String(contentsOfFile: folder + "/po/fr.po", encoding: .utf8)
        #expect(catalog.contains("\"Language: fr\\n\""))
        #expect(catalog.contains("\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\""))
        #expect(!catalog.contains("do not edit"), "the template's own comment stayed")
        let again = try run(
            "/usr/bin/python3", [folder + "/scripts/po.py", "init", "fr"], environment: environment,
            timeout: 60)
        #expect(again.status != 0 && again.stderr.contains("exists already"), "\(again.stderr)")
    }
}
