/// Every generated file, by its path under share/.
public enum Documents {
    public static func all(date: String, guide: String = ManPage.defaultGuide) -> [(
        path: String, text: String
    )] {
        ToolDocument.all.flatMap { tool -> [(path: String, text: String)] in
            [("man/man1/\(tool.name).1", ManPage.render(tool, date: date, guide: guide))]
                + Completions.Shell.allCases.map { shell in
                    (
                        "\(shell.directory)/\(shell.fileName(for: tool.name))",
                        Completions.render(tool, shell: shell)
                    )
                }
        }
    }
}

extension ManPage {
    /// The date a page shows when none is given: the version's, so that builds are reproducible.
    public static let defaultDate = "2026-12-01"
    /// Where the Debian package installs the user guide (`make install` puts it under its PREFIX).
    public static let defaultGuide = "/usr/share/doc/snapsize/GUIDE.md.gz"
}
