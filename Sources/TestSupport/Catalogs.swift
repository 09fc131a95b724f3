import Foundation

/// The package's folder (where Package.swift is), for tests that read its files.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The package's po/ folder.
public let poDirectory = repositoryRoot + "/po"

/// Compiles po/<lang>.po with msgfmt into `<products>/locale/<lang>/LC_MESSAGES/snapsize.mo`, where the
/// uninstalled snapsized and snapsizectl look for them (`Gettext.localeDirectory`), once per test
/// process; returns the languages. Each file is written aside and renamed, so a binary never sees half of one.
public func compileCatalogs() throws -> [String] {
    try compiledCatalogs.get()
}

private let compiledCatalogs: Result<[String], TestFailure> = {
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: poDirectory)) ?? []).filter {
        $0.hasSuffix(".po")
    }
    guard !files.isEmpty else { return .failure(TestFailure("no catalogs in \(poDirectory)")) }
    var languages: [String] = []
    for file in files.sorted() {
        let language = String(file.dropLast(3))
        let folder = productsDirectory + "/locale/" + language + "/LC_MESSAGES"
        let target = folder + "/snapsize.mo", partial = target + ".\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let result = try run(
                "msgfmt", ["--check", "-o", partial, poDirectory + "/" + file],
                environment: ProcessInfo.processInfo.environment, timeout: 30)
            guard result.status == 0 else {
                return .failure(
                    TestFailure(
                        "msgfmt \(file) failed (apt install gettext; `make test` does it): \(result.stderr)"
                    ))
            }
            guard rename(partial, target) == 0 else {
                return .failure(TestFailure("cannot rename \(partial)"))
            }
        } catch {
            return .failure(TestFailure("msgfmt \(file): \(error)"))
        }
        languages.append(language)
    }
    return .success(languages)
}()

/// `environment` with the language variables set to exactly `language` (nil removes one), so the
/// machine's own LANG or LC_ALL cannot leak into a test.
public func withLanguage(
    _ environment: [String: String], LANG: String?, LANGUAGE: String? = nil,
    LC_ALL: String? = nil, LC_MESSAGES: String? = nil
) -> [String: String] {
    var env = environment
    env["LANG"] = LANG
    env["LANGUAGE"] = LANGUAGE
    env["LC_ALL"] = LC_ALL
    env["LC_MESSAGES"] = LC_MESSAGES
    return env
}

/// Whether glibc has `locale` (e.g. "pt_BR.UTF-8") installed; gettext speaks only in an installed locale.
public func localeInstalled(_ locale: String) -> Bool {
    guard
        let result = try? run(
            "locale", ["-a"], environment: ProcessInfo.processInfo.environment, timeout: 10)
    else {
        return false
    }
    let wanted = locale.lowercased().replacingOccurrences(of: "utf-8", with: "utf8")
    return result.stdout.split(separator: "\n").contains { $0.lowercased() == wanted }
}
