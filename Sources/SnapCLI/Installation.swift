#if canImport(Glibc)
    import Glibc
#endif
import SizeSelectorContract
import SnapTexts

/// How snapsize was installed, told from where this program runs, so that `doctor`'s advice fits:
/// the Debian package, `make install` with some PREFIX, or a build tree.
enum Installation: Equatable {
    /// The Debian package: /usr/bin, the activation file in /usr/share/dbus-1/services.
    case package
    /// `make install` with this PREFIX (its bin/ holds this program).
    case prefix(String)
    /// A build tree (`.build/release`, `.build/debug`): this folder holds snapsized too.
    case buildTree(String)

    /// `executable` is this program's path; `packaged` whether the snapsize package is installed;
    /// `daemonBeside` whether snapsized is in the same folder.
    static func detect(executable: String, packaged: Bool, daemonBeside: Bool = false) -> Installation {
        let folder = folder(of: executable)
        // SwiftPM puts a build's products side by side in one folder (`.build/debug`, or that of any
        // --scratch-path, such as make stress's .build-asan), never in a bin/ folder as the package and
        // make install do.
        if Texts.contains(folder, "/.build/") || (daemonBeside && !folder.hasSuffix("/bin")) {
            return .buildTree(folder)
        }
        let prefix = folder.hasSuffix("/bin") ? String(folder.dropLast(4)) : folder
        if prefix == "/usr", packaged { return .package }
        return .prefix(prefix.isEmpty ? "/" : prefix)
    }

    /// This program's installation, from /proc/self/exe and the package's copyright file, which only
    /// the Debian package installs (`make install` does not; dpkg's own database is not for programs to read).
    static func current() -> Installation {
        let executable = executablePath() ?? "/usr/bin/snapsizectl"
        return detect(
            executable: executable, packaged: access("/usr/share/doc/snapsize/copyright", F_OK) == 0,
            daemonBeside: access(folder(of: executable) + "/snapsized", X_OK) == 0)
    }

    /// This program's path, from /proc/self/exe; nil without /proc.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0
            ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }

    private static func folder(of executable: String) -> String {
        String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
    }

    /// What to do when snapsized has no owner and D-Bus cannot start it.
    func daemonFix(home: String?) -> String {
        switch self {
        case .package:
            return tr(
                "start it (systemctl --user start snapsized), or reinstall the package, which puts %s "
                    + "in /usr/share/dbus-1/services for D-Bus activation: sudo apt install --reinstall snapsize",
                SelectorBus.activationFile)
        case .prefix(let prefix):
            let services = (prefix == "/" ? "" : prefix) + "/share/dbus-1/services"
            var fix = tr(
                "start it (%1$s &), or run 'make install PREFIX=%2$s' again from the snapsize sources: "
                    + "it puts %3$s in %4$s, where D-Bus activation finds it",
                (prefix == "/" ? "" : prefix) + "/bin/snapsized", prefix, SelectorBus.activationFile,
                services)
            // The session bus reads $XDG_DATA_HOME (~/.local/share) and $XDG_DATA_DIRS (/usr/local/share, /usr/share).
            if !["/usr", "/usr/local"].contains(prefix), home.map({ prefix != $0 + "/.local" }) ?? true {
                fix += tr(
                    "; the session bus looks there only when %s is in XDG_DATA_DIRS",
                    (prefix == "/" ? "" : prefix) + "/share")
            }
            return fix
        case .buildTree(let folder):
            return tr(
                "start it from this build (%s/snapsized &), or install it for D-Bus activation: "
                    + "'make install' in the snapsize sources (PREFIX, default ~/.local)", folder)
        }
    }
}
