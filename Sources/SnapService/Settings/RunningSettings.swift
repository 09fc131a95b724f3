import SizeSelectorContract
import SnapCore
import SnapSettings

/// What a client set at run time over the file's settings: networkd's per-link `SetNTP` servers.
/// A nil field is the file's. A new run-time setter adds its field here and nowhere else.
public struct SettingsOverride: Equatable, Sendable {
    /// The allowed sizes (what a `SetSizes` would set); the track and layout stay the file's.
    public var sizes: SizeSet?

    public init(sizes: SizeSet? = nil) {
        self.sizes = sizes
    }

    /// No override: the file's settings are in force.
    public static let none = SettingsOverride()

    /// `file` with this override on top.
    public func applied(to file: DaemonSettings) -> DaemonSettings {
        var settings = file
        if let sizes {
            settings.snapper = Snapper(
                sizes: sizes, track: file.snapper.track, layout: file.snapper.layout)
        }
        return settings
    }
}

/// The settings in force: the one owner of what snapsized runs with now, and the only caller of
/// what applies them (the model's `setSnapper`/`setTexts`, the preview guard's timeout, the
/// accessible side's `announce`).
///
/// Two layers, as systemd-networkd keeps a link's NTP servers (`src/network/networkd-link-bus.c`):
/// `file` is what the flags and the config file said, at start and at each usable SIGHUP (the
/// `.network` file); `override` is what a client set at run time over it (`SetNTP` stores `l->ntp`);
/// `revert` drops it (`RevertNTP`: `link_ntp_settings_clear`), so the file's values are in force
/// again. What should be in force is `override.applied(to: file)`; `inForce` is what is applied now,
/// which differs from it only while a new list could not be saved (the old one stays, and the next
/// reload, set or revert tries again).
///
/// **A SIGHUP keeps a run-time override.** A reload replaces `file` and applies what changed in it,
/// except what the override shadows: a list set at run time stays in force until it is reverted or
/// the daemon restarts (the override is not saved), and the log says that the file's list waits.
/// networkd, too, clears a link's run-time NTP servers only on `RevertNTP` or when the link goes.
/// So a reload never undoes a client's choice behind its back, and `revert` is the one way back.
///
/// `Daemon.wire` makes it (`Adapters.settings`); the SIGHUP handler calls `reload`, and a run-time
/// setter on the bus (a `SetSizes`, a `RevertSizes`) would call `set` and `revert` with its caller's
/// cause, adding its field to `SettingsOverride`.
public final class RunningSettings {
    /// What the flags and the config file said, at start or at the last reload that could use the file.
    public internal(set) var file: DaemonSettings
    /// What a client set at run time over `file`; `.none` when nothing.
    public private(set) var override: SettingsOverride = .none
    /// The settings applied now.
    public private(set) var inForce: DaemonSettings
    private unowned let model: SelectionModel
    let config: ConfigReport
    /// Nil in tests without a bus, and with --no-accessibility.
    private weak var previewGuard: PreviewGuard?
    private weak var accessibility: AccessibilityService?

    /// `settings` are in force already: the model, the guard and the accessible side were made from them.
    init(
        _ settings: DaemonSettings, model: SelectionModel, config: ConfigReport = ConfigReport(),
        previewGuard: PreviewGuard? = nil, accessibility: AccessibilityService? = nil
    ) {
        file = settings
        inForce = settings
        self.model = model
        self.config = config
        self.previewGuard = previewGuard
        self.accessibility = accessibility
    }

    /// Sets `new` over the file's settings (replacing any override before it), for `cause`: a
    /// client's run-time setter lands here. Applied at once, as a reload applies a new list; refused
    /// as a whole, the override unchanged, when the model refuses the list (a preview is open, or the
    /// committed size cannot be saved). Returns the names of what changed, for the log.
    @discardableResult
    public func set(_ new: SettingsOverride, as cause: ChangeCause) throws(ModelError) -> [String] {
        let applied = try applyWhole(new.applied(to: file), as: cause)
        override = new
        log(
            "run-time settings (\(cause.kind.rawValue) by \(cause.by.uniqueName)): "
                + (applied.isEmpty ? "nothing to apply" : "applied " + applied.joined(separator: ", ")))
        return applied
    }

    /// Drops the override: the file's settings are in force again (a list change as `set` makes it).
    @discardableResult
    public func revert(as cause: ChangeCause) throws(ModelError) -> [String] {
        guard override != .none else { return [] }
        let applied = try applyWhole(file, as: cause)
        override = .none
        log(
            "run-time settings reverted (\(cause.kind.rawValue) by \(cause.by.uniqueName)): the file's settings apply again"
                + (applied.isEmpty ? "" : "; applied " + applied.joined(separator: ", ")))
        return applied
    }

    private func applyWhole(_ target: DaemonSettings, as cause: ChangeCause) throws(ModelError)
        -> [String]
    {
        let result = apply(target, as: cause)
        if let refused = result.refused { throw refused.error }
        return result.applied
    }

    /// What `apply` did: the options applied (with the committed size's move), and a new list the
    /// model refused, with the options it named.
    struct Applied {
        var applied: [String] = []
        var refused: (names: String, error: ModelError)?
    }

    /// Applies the options of `target` that can change while serving and differ from `inForce`;
    /// `inForce` follows each one applied. A new list, track or layout goes through the model as
    /// `cause`, first, so that a refused list leaves the rest to apply.
    func apply(_ target: DaemonSettings, as cause: ChangeCause) -> Applied {
        var result = Applied()
        if target.previewTimeout != inForce.previewTimeout {
            previewGuard?.timeout = target.previewTimeout
            result.applied.append(
                "preview-timeout \(inForce.previewTimeout) -> \(target.previewTimeout)")
            inForce.previewTimeout = target.previewTimeout
        }
        if target.announce != inForce.announce {
            accessibility?.announce = target.announce
            result.applied.append("announce \(inForce.announce.rawValue) -> \(target.announce.rawValue)")
            inForce.announce = target.announce
        }
        if target.snapper != inForce.snapper {
            let names = Self.snapperOptions(inForce, target).joined(separator: ", ")
            let size = model.committedSize
            do {
                try model.setSnapper(target.snapper, as: cause)
                inForce.snapper = target.snapper
                result.applied.append(
                    names
                        + (model.committedSize == size
                            ? "" : " (committed size \(size) -> \(model.committedSize))"))
            } catch {
                result.refused = (names, error)
            }
        }
        if target.texts != inForce.texts {
            model.setTexts(target.texts)
            inForce.texts = target.texts
            result.applied.append("label/unit")
        }
        return result
    }

    /// The options of the list, track and layout that differ between `a` and `b`.
    static func snapperOptions(_ a: DaemonSettings, _ b: DaemonSettings) -> [String] {
        var names: [String] = []
        if a.snapper.sizes != b.snapper.sizes { names.append("sizes") }
        if a.snapper.layout != b.snapper.layout { names.append("layout") }
        if a.snapper.track != b.snapper.track { names.append("track-width/track-inset") }
        return names
    }
}
