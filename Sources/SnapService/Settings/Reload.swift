import SnapSettings
import SnapTexts

extension Daemon {
    /// SIGHUP: reads the config file again (with the same flags, which still win) and applies what
    /// can change while serving: the preview timeout, how changes are spoken, the list, track and
    /// layout, and the label and unit. A new list, track or layout goes through the model
    /// (`setSnapper`): an open preview ends as a cancel does, the committed size maps to the new list
    /// and is saved before anything is announced (a failed save keeps the running list, track and
    /// layout, and the log says why), then PropertiesChanged, Committed and the accessible
    /// description/value events go out; new words go through `setTexts` in the same way.
    /// The initial size, the state file and the accessibility side take effect at the next start;
    /// the log says which changed. A file that cannot be used changes nothing. Returns the settings
    /// now running.
    static func reload(_ running: DaemonSettings, reread: () throws(InvalidValue) -> DaemonSettings,
                       model: SelectionModel, previewGuard: PreviewGuard, accessibility: AccessibilityService?,
                       config: ConfigReport = ConfigReport()) -> DaemonSettings {
        let wanted: DaemonSettings
        do {
            wanted = try reread()
        } catch {
            log("reload (SIGHUP): the config file cannot be used, so the running settings stay: \(error.message)")
            config.set([tr("%s; the reload changed nothing: the running settings stay", error.message)])
            return running
        }
        config.set([])
        var now = running
        var applied: [String] = []
        var refused: String?
        if wanted.previewTimeout != running.previewTimeout {
            previewGuard.timeout = wanted.previewTimeout
            now.previewTimeout = wanted.previewTimeout
            applied.append("preview-timeout \(running.previewTimeout) -> \(wanted.previewTimeout)")
        }
        if wanted.announce != running.announce {
            accessibility?.announce = wanted.announce
            now.announce = wanted.announce
            applied.append("announce \(running.announce.rawValue) -> \(wanted.announce.rawValue)")
        }
        if wanted.snapper != running.snapper {
            let names = snapperOptions(running, wanted).joined(separator: ", ")
            let size = model.committedSize
            do {
                try model.setSnapper(wanted.snapper)
                now.snapper = wanted.snapper
                applied.append(names + (model.committedSize == size ? "" : " (committed size \(size) -> \(model.committedSize))"))
            } catch {
                refused = "\(names) not applied, the running ones stay: \(error.dbusError.message)"
            }
        }
        if wanted.texts != running.texts {
            model.setTexts(wanted.texts)
            now.texts = wanted.texts
            applied.append("label/unit")
        }
        let atRestart = restartOnly(running, wanted)
        var parts: [String] = []
        if !applied.isEmpty { parts.append("applied " + applied.joined(separator: ", ")) }
        if let refused { parts.append(refused) }
        if parts.isEmpty { parts.append("nothing to apply") }
        if !atRestart.isEmpty {
            parts.append("changed, but only taking effect at the next start: " + atRestart.joined(separator: ", "))
        }
        log("reload (SIGHUP): " + parts.joined(separator: "; "))
        return now
    }

    /// The options of the list, track and layout that differ between `a` and `b`.
    static func snapperOptions(_ a: DaemonSettings, _ b: DaemonSettings) -> [String] {
        var names: [String] = []
        if a.snapper.sizes != b.snapper.sizes { names.append("sizes") }
        if a.snapper.layout != b.snapper.layout { names.append("layout") }
        if a.snapper.track != b.snapper.track { names.append("track-width/track-inset") }
        return names
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
