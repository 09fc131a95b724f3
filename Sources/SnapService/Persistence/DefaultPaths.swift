// Where snapsized keeps its files when no flag or config key names them (the XDG base directories).

import Glibc

/// `$XDG_STATE_HOME/snapsize/state`, with the XDG default `~/.local/state`. Without HOME (a
/// service started with an emptied environment), the home folder is the password database's, as
/// GLib's `g_get_home_dir` finds it; nil only when even that has none.
public func defaultStatePath(environment: [String: String], passwordHome: () -> String? = passwordHome)
    -> String?
{
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
        return state + "/snapsize/state"
    }
    return home(environment, passwordHome).map { $0 + "/.local/state/snapsize/state" }
}

/// `$XDG_CONFIG_HOME/snapsize/config`, with the XDG default `~/.config` (the home folder as above).
public func defaultConfigPath(environment: [String: String], passwordHome: () -> String? = passwordHome)
    -> String?
{
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
        return config + "/snapsize/config"
    }
    return home(environment, passwordHome).map { $0 + "/.config/snapsize/config" }
}

/// The one line the log gets at start when the environment does not say where the committed size
/// goes: the password database's home folder is used, or nothing can be saved at all (so a person
/// reading the journal knows why a restart forgets the size). Nil when there is nothing to say.
func statePlaceNote(stateFile: String?, chosenNone: Bool, environment: [String: String]) -> String? {
    let named =
        environment["XDG_STATE_HOME"]?.hasPrefix("/") == true
        || environment["HOME"]?.hasPrefix("/") == true
    guard !named, !chosenNone else { return nil }
    guard let stateFile else {
        return "neither XDG_STATE_HOME nor HOME is set and the password database names no home folder: "
            + "the committed size is NOT saved (set one of them, or use --state-file)"
    }
    guard stateFile == defaultStatePath(environment: environment) else { return nil }
    return
        "neither XDG_STATE_HOME nor HOME is set: the committed size is saved in \(stateFile) (the home folder "
        + "the password database names)"
}

private func home(_ environment: [String: String], _ passwordHome: () -> String?) -> String? {
    if let home = environment["HOME"], home.hasPrefix("/") { return home }
    return passwordHome()
}

/// The home folder of this process's user in the password database (getpwuid_r), if it names one.
public func passwordHome() -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16 * 1024)
    guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil,
        let folder = entry.pw_dir
    else { return nil }
    let home = String(cString: folder)
    return home.hasPrefix("/") ? home : nil
}
