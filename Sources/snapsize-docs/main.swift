import Foundation
import SnapDocs

// `snapsize-docs DIR [--guide=PATH] [DATE]`: writes the man pages and shell completions of snapsizectl and
// snapsized under DIR in the layout of share/ (man/man1, bash-completion/completions, zsh/vendor-completions,
// fish/vendor_completions.d); the pages name PATH as the installed user guide. A build tool for
// `make install` and `make deb`; it is not installed.
let guideOption = "--guide="
let guide =
    CommandLine.arguments.last { $0.hasPrefix(guideOption) }.map {
        String($0.dropFirst(guideOption.count))
    }
    ?? ManPage.defaultGuide
let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix(guideOption) }
guard let directory = arguments.first else {
    FileHandle.standardError.write(Data("usage: snapsize-docs DIR [--guide=PATH] [DATE]\n".utf8))
    exit(64)
}
let date = arguments.dropFirst().first ?? ManPage.defaultDate
do {
    for (path, text) in Documents.all(date: date, guide: guide) {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write(Data("snapsize-docs: \(error)\n".utf8))
    exit(1)
}
