// Where snapsized keeps its files when no flag or config key names them (the XDG base directories).

/// `$XDG_STATE_HOME/snapsize/state`, with the XDG default `~/.local/state`.
public func defaultStatePath(environment: [String: String]) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/snapsize/state" }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/.local/state/snapsize/state"
}

/// `$XDG_CONFIG_HOME/snapsize/config`, with the XDG default `~/.config`.
public func defaultConfigPath(environment: [String: String]) -> String? {
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/snapsize/config" }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/.config/snapsize/config"
}
