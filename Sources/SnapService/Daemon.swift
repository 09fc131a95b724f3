import DBusKit
import Glibc
import SizeSelectorContract
import SnapCore
import SnapSettings

/// `snapsized`: reads its settings, restores the committed size, serves it on the session bus
/// (and the accessibility bus), and runs one event loop until SIGTERM/SIGINT or the bus goes away.
public enum Daemon {
    public static let version = "0.1.0"

    /// Exit statuses, documented in `snapsized --help`.
    public enum Status: Int32 {
        case stopped = 0
        case usage = 64
        case unavailable = 69
        case busLost = 75
    }

    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let flags: DaemonValues
        do {
            switch try DaemonArguments.parse(arguments) {
            case .help:
                print(DaemonArguments.helpText(), terminator: "")
                return Status.stopped.rawValue
            case .version:
                print("snapsized \(version)")
                return Status.stopped.rawValue
            case .run(let parsed):
                flags = parsed
            }
        } catch {
            log(error.message)
            return Status.usage.rawValue
        }
        // The session bus first (make bench: exec -> name owned): connecting and authenticating take
        // round trips to the bus, which answers while the settings below are read. Only RequestName,
        // in serve, takes the name, so wrong settings still stop start-up without it; a bus that is
        // not there is reported there too, after the settings.
        let registration = Result { () throws(MethodError) in try BusRegistration.session(environment: environment) }
        let statePath = defaultStatePath(environment: environment)
        let configPath = flags.config ?? defaultConfigPath(environment: environment)
        let settings: DaemonSettings
        do {
            // Flags are checked on their own first: a person typed them, so a mistake stops start-up.
            _ = try DaemonArguments.settings(flags: flags, config: DaemonValues(), defaultStateFile: statePath)
            try? registration.get().advance()
            let config = try readConfig(path: configPath, explicit: flags.config != nil)
            try? registration.get().advance()
            settings = try DaemonArguments.settings(flags: flags, config: config, defaultStateFile: statePath)
            let chosen = config.overridden(by: flags).noState == true
            if let note = statePlaceNote(stateFile: settings.stateFile, chosenNone: chosen, environment: environment) {
                log(note)
            }
        } catch {
            log(error.message)
            return Status.usage.rawValue
        }
        // SIGHUP reads the file again; there, a file that cannot be used keeps the running settings.
        let reread = { () throws(InvalidValue) -> DaemonSettings in
            let config = try readConfig(path: configPath, explicit: flags.config != nil, reloading: true)
            return try DaemonArguments.settings(flags: flags, config: config, defaultStateFile: statePath)
        }
        return serve(settings: settings, environment: environment, reread: reread, registration: registration).rawValue
    }

    /// The config file's values. A missing default file is normal. A default file that cannot be
    /// used is reported and ignored (left untouched: it is the user's), so that a daemon started by
    /// activation, where nobody reads stderr, still comes up; a file named with --config must be right.
    /// When `reloading`, a file that cannot be used is an error too (the running settings stay).
    static func readConfig(path: String?, explicit: Bool, reloading: Bool = false) throws(InvalidValue) -> DaemonValues {
        guard let path else { return DaemonValues() }
        let problem: String
        switch SmallFile.read(path, maximumBytes: 64 * 1024, followLinks: true) {
        case .missing:
            if !explicit { return DaemonValues() }
            problem = "it does not exist"
        case .unusable(let reason):
            problem = reason
        case .text(let text):
            do {
                let values = try DaemonArguments.parseConfig(text, path: path)
                // Validate the values on their own, so one bad line is caught here, not later.
                _ = try DaemonArguments.settings(flags: DaemonValues(), config: values, defaultStateFile: nil)
                return values
            } catch {
                problem = error.message
            }
        }
        if explicit || reloading { throw InvalidValue("\(explicit ? "--config " : "")\(path): \(problem)") }
        log("ignoring the config file \(path): \(problem); using the built-in defaults and the flags")
        return DaemonValues()
    }

    /// The selection to start with: the saved size (re-snapped to today's sizes), else the initial one.
    static func makeModel(_ settings: DaemonSettings) -> SelectionModel {
        let sizes = settings.snapper.sizes
        var index = settings.initialIndex
        let store = settings.stateFile.map(StateStore.init(path:))
        if let store {
            switch store.load() {
            case .missing:
                break
            case .size(let saved):
                index = sizes.index(nearestTo: saved)
                if sizes[index] != saved {
                    log("the saved size \(saved) is not one of \(sizes.sizes); using \(sizes[index]) instead")
                }
            case .unusable(let reason, let movedTo):
                let kept = movedTo.map { "; it was kept as \($0)" } ?? ""
                log("the state file \(store.path) could not be used: \(reason)\(kept); starting at \(sizes[index])")
            }
        }
        // `index` comes from SizeSet's own lookups, so it is always valid.
        let selection = try! Selection(snapper: settings.snapper, committed: index)
        return SelectionModel(selection: selection, texts: settings.texts, store: store)
    }

    /// Connects, takes the name, restores the selection, exports and runs the loop; returns how it ended.
    static func serve(settings: DaemonSettings, environment: [String: String],
                      reread: (() throws(InvalidValue) -> DaemonSettings)? = nil,
                      registration: Result<BusRegistration, MethodError>? = nil) -> Status {
        let loop = EventLoop()
        // The name first, then everything that serves it (make bench: exec -> name owned): RequestName
        // goes right behind Hello, one round trip for both. Nothing is dispatched before loop.run(): a
        // call that arrives in between waits in libdbus's queue until the saved size is restored and the
        // object that answers from it is exported, below. (A second snapsized, refused the name, no
        // longer reads the state file, nor moves an unusable one aside under the running one.)
        let session: Connection
        let owned: Result<Bool, MethodError>
        do {
            let started = try (registration ?? Result { () throws(MethodError) in
                try BusRegistration.session(environment: environment)
            }).get()
            (session, owned) = try started.finish(requesting: SelectorBus.name)
        } catch {
            log("cannot connect to the session bus (\(error.message))")
            return .unavailable
        }
        switch owned {
        case .success(true):
            break
        case .success(false):
            log("\(SelectorBus.name.rawValue) is already owned on this session bus: another snapsized is running")
            return .unavailable
        case .failure(let error):
            log("cannot serve \(SelectorBus.name.rawValue): \(error.message)")
            return .unavailable
        }
        loop.add(session)
        let model = makeModel(settings)
        // Calls already queued together are applied in order and saved once, then answered.
        // (The loop keeps its closures, so they hold the loop and the model unowned: a strong capture
        // would be a cycle that outlives serve, which valgrind reports as a definite leak in `make stress`.)
        loop.groupCommit = GroupCommit(begin: { [unowned model] in model.beginGroup() },
                                       end: { [unowned model] in model.endGroup()?.dbusError })
        // The adapters, wired here and nowhere else. The accessible slider shares this loop and this
        // model; an accessibility bus that is missing or lost never ends the daemon.
        let accessibility = settings.accessibility
            ? AccessibilityService(model: model, session: session, loop: loop,
                                   announce: settings.announce, environment: environment)
            : nil
        let object = SizeSelectorObject(model: model, connection: session, focus: accessibility)
        let previewGuard = PreviewGuard(model: model, connection: session, loop: loop, timeout: settings.previewTimeout)
        // What an accepted change sets off, in this order, all before the method's reply (the
        // Dispatcher sends it once the handler returns):
        // 1. the accessible-value event and announcement: a person waits on the screen reader
        //    (keypress -> value event -> speech; make bench: call -> accessible-value event);
        // 2. PropertiesChanged, then Committed, on the session bus;
        // 3. the preview guard starts or stops watching a preview's owner.
        // (Unowned: the adapters hold the model, and this function keeps the adapters to its end.)
        model.observe { [unowned accessibility, unowned object, unowned previewGuard] change in
            accessibility?.selectionChanged(change)
            object.announce(change)
            previewGuard.selectionChanged(change)
        }
        // New words from a reload: the accessible name/description events, then PropertiesChanged.
        model.observeTexts { [unowned accessibility, unowned object] change in
            accessibility?.textsChanged(change)
            object.announce(change)
        }
        // A new list, track or layout from a reload (after any preview ended as a cancel, above):
        // the accessible description/value events, then PropertiesChanged and Committed.
        model.observeSnapper { [unowned accessibility, unowned object] change in
            accessibility?.snapperChanged(change)
            object.announce(change)
        }
        // A step stopped by an end is spoken (after the change it made, if any).
        model.observeLimits { [unowned accessibility] largest, moved in
            accessibility?.reachedLimit(largest: largest, moved: moved)
        }
        // Every Preview call restarts the guard's silence timer, even one that changes nothing.
        model.observePreviewMoves { [unowned previewGuard] owner in previewGuard.touched(by: owner) }
        do {
            try object.start()
        } catch {
            log("cannot serve \(SelectorBus.name.rawValue): \(error.message)")
            return .unavailable
        }
        accessibility?.start()
        var status = Status.stopped
        session.onDisconnect = { [unowned loop] in
            log("the session bus went away; exiting so that the session can start me again")
            status = .busLost
            loop.stop()
        }
        loop.onSignal(SIGTERM) { [unowned loop] in loop.stop() }
        loop.onSignal(SIGINT) { [unowned loop] in loop.stop() }
        // SIGHUP (systemd's ExecReload=, `kill -HUP`): the config file again, applied where it can be.
        var running = settings
        loop.onSignal(SIGHUP) { [unowned previewGuard, unowned model, weak accessibility] in
            running = reload(running, reread: reread ?? { running }, model: model, previewGuard: previewGuard,
                             accessibility: accessibility)
        }
        loop.run()
        // Blocked again for the orderly stop: once the loop is gone its handlers are too, and a
        // SIGHUP still arriving (a flood of reloads) would end the process by its default action.
        var handledNoMore = sigset_t()
        sigemptyset(&handledNoMore)
        for signo in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&handledNoMore, signo) }
        pthread_sigmask(SIG_BLOCK, &handledNoMore, nil)
        if status == .stopped {
            // Orderly stop: end a preview as if cancelled, so watchers see the committed size again.
            _ = try? model.perform { $0.endPreview() }
            // Bounded: a session bus that stopped reading must not keep us from exiting.
            session.flush(timeout: 2)
        }
        accessibility?.stop()
        withExtendedLifetime((object, previewGuard)) {}  // the observers above hold them unowned
        // Closing drops what the connection keeps (exported tables, reusable messages) before exit,
        // so a leak checker sees it freed rather than held by a pointer it cannot follow.
        session.close()
        return status
    }
}
