import SizeSelectorContract
import SnapSettings
import SnapTexts

extension RunningSettings {
    /// SIGHUP: reads the config file again (with the same flags, which still win) and applies what
    /// can change while serving: the preview timeout, how changes are spoken, the list, track and
    /// layout, and the label and unit. A new list, track or layout goes through the model
    /// (`setSnapper`, as a `.reload` by nobody): an open preview ends as a cancel does, the committed
    /// size maps to the new list and is saved before anything is announced (a failed save keeps the
    /// list, track and layout in force, the log says why, and the next reload tries again), then
    /// PropertiesChanged, Committed and the accessible description/value events go out; new words go
    /// through `setTexts` in the same way. A run-time override stays in force (see `RunningSettings`):
    /// the file's list waits under it. The initial size, the state file and the accessibility side
    /// take effect at the next start; the log says which changed. A file that cannot be used changes
    /// nothing. `merged`: how many more SIGHUPs this reload stands for (`ReloadRequests`), said
    /// first in its log line.
    func reload(merged: Int = 0, reread: () throws(InvalidValue) -> DaemonSettings) {
        let head =
            "reload (SIGHUP): "
            + (merged > 0
                ? "merging \(merged) more SIGHUPs that came within \(ReloadRequests.spacing) s; " : "")
        let wanted: DaemonSettings
        do {
            wanted = try reread()
        } catch {
            log(head + "the config file cannot be used, so the running settings stay: \(error.message)")
            config.set([tr("%s; the reload changed nothing: the running settings stay", error.message)])
            return
        }
        config.set([])
        let before = file
        file = wanted
        let result = apply(override.applied(to: wanted), as: ChangeCause(.reload))
        var parts: [String] = []
        if !result.applied.isEmpty { parts.append("applied " + result.applied.joined(separator: ", ")) }
        if let refused = result.refused {
            parts.append(
                "\(refused.names) not applied, the running ones stay: \(refused.error.dbusError.message)"
            )
        }
        if parts.isEmpty { parts.append("nothing to apply") }
        if override.sizes != nil, wanted.snapper.sizes != before.snapper.sizes {
            parts.append(
                "the file's new sizes wait: a list set at run time stays in force until it is reverted")
        }
        let atRestart = Self.restartOnly(inForce, wanted)
        if !atRestart.isEmpty {
            parts.append(
                "changed, but only taking effect at the next start: " + atRestart.joined(separator: ", ")
            )
        }
        log(head + parts.joined(separator: "; "))
    }

    /// The options that differ between `a` and `b` and cannot change while serving.
    static func restartOnly(_ a: DaemonSettings, _ b: DaemonSettings) -> [String] {
        var names: [String] = []
        if a.initialSize != b.initialSize { names.append("initial") }
        if a.stateFile != b.stateFile { names.append("state-file/no-state") }
        if a.accessibility != b.accessibility { names.append("no-accessibility") }
        return names
    }
}
