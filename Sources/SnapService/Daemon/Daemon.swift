import DBusKit
import Glibc
import SizeSelectorContract
import SnapCore
import SnapSettings
import SnapTexts

/// `snapsized`: reads its settings, restores the committed size, serves it on the session bus
/// (and the accessibility bus), and runs one event loop until SIGTERM/SIGINT or the bus goes away.
public enum Daemon {
    public static let version = snapsizeVersion

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
        let start: Start
        do {
            start = try Self.start(flags: flags, environment: environment)
        } catch {
            log(error.message)
            return Status.usage.rawValue
        }
        return serve(start, environment: environment).rawValue
    }

    /// What start-up hands to `serve`.
    struct Start {
        var settings: DaemonSettings
        /// Reads the settings again (SIGHUP); a file that cannot be used throws, and the running settings stay.
        var reread: () throws(InvalidValue) -> DaemonSettings
        /// The session bus connection, authenticating meanwhile; no name asked for yet.
        var bus: Result<BusRegistration, MethodError>
        /// Why the default config file was not used (the `ConfigProblems` property); empty when it was.
        var configProblems: [String] = []
        /// --no-state, or `no-state` in the config file: nothing is saved because the person chose so.
        var noStateChosen = false
    }

    /// Reads the settings while the session bus connection is made: connecting and authenticating
    /// take round trips to the bus, which it answers while the settings are read, and after each
    /// step the exchange moves on by what the bus answered meanwhile (`advance`, which never waits).
    /// The name is asked for only in `serve`, so wrong settings stop start-up without it; a bus that
    /// is not there is reported there too, after the settings.
    static func start(flags: DaemonValues, environment: [String: String]) throws(InvalidValue) -> Start {
        let bus = Result { () throws(MethodError) in
            try BusRegistration.session(environment: environment)
        }
        let meanwhile = { try? bus.get().advance() }
        let statePath = defaultStatePath(environment: environment)
        let configPath = flags.config ?? defaultConfigPath(environment: environment)
        let explicit = flags.config != nil
        // Flags are checked on their own first: a person typed them, so a mistake stops start-up.
        _ = try DaemonArguments.settings(
            flags: flags, config: DaemonValues(), defaultStateFile: statePath)
        meanwhile()
        var problems: [String] = []
        let config = try readConfig(
            path: configPath, explicit: explicit, unused: { problems.append($0) })
        meanwhile()
        let settings = try DaemonArguments.settings(
            flags: flags, config: config, defaultStateFile: statePath)
        let chosen = config.overridden(by: flags).noState == true
        if let note = statePlaceNote(
            stateFile: settings.stateFile, chosenNone: chosen, environment: environment)
        {
            log(note)
        }
        return Start(
            settings: settings,
            reread: { () throws(InvalidValue) -> DaemonSettings in
                let config = try readConfig(path: configPath, explicit: explicit, reloading: true)
                return try DaemonArguments.settings(
                    flags: flags, config: config, defaultStateFile: statePath)
            }, bus: bus, configProblems: problems, noStateChosen: chosen)
    }

    /// The config file's values. A missing default file is normal. A default file that cannot be
    /// used is reported and ignored (left untouched: it is the user's), so that a daemon started by
    /// activation, where nobody reads stderr, still comes up; a file named with --config must be right.
    /// When `reloading`, a file that cannot be used is an error too (the running settings stay).
    /// A file with one bad line is not used at all, as one named with --config is refused whole:
    /// `unused` gets the sentence for the person (the `ConfigProblems` property), naming the line.
    static func readConfig(
        path: String?, explicit: Bool, reloading: Bool = false,
        unused: (String) -> Void = { _ in }
    ) throws(InvalidValue) -> DaemonValues {
        guard let path else { return DaemonValues() }
        let problem: String
        switch SmallFile.read(path, maximumBytes: 64 * 1024, followLinks: true) {
        case .missing:
            if !explicit { return DaemonValues() }
            problem = tr("it does not exist")
        case .unusable(let reason):
            problem = reason
        case .text(let text):
            do {
                let values = try DaemonArguments.parseConfig(text, path: path)
                // Validate the values on their own, so one bad line is caught here, not later.
                _ = try DaemonArguments.settings(
                    flags: DaemonValues(), config: values, defaultStateFile: nil)
                return values
            } catch {
                problem = error.message
            }
        }
        if explicit || reloading {
            throw InvalidValue("\(explicit ? "--config " : "")\(path): \(problem)")
        }
        log("ignoring the config file \(path): \(problem); using the built-in defaults and the flags")
        // The parser's messages start with the file and line already ("…/config:2: unknown key 'sizez'").
        let located = problem.hasPrefix(path + ":") ? problem : path + ": " + problem
        unused(tr("%s; the file was not used: the built-in settings and the options apply", located))
        return DaemonValues()
    }

    /// The history file beside the state file; nil with --no-state (the history lives in memory).
    static func historyFile(_ settings: DaemonSettings) -> HistoryFile? {
        settings.stateFile.map { HistoryFile(path: HistoryFile.path(besideStateFile: $0)) }
    }

    /// The selection to start with: the saved size (re-snapped to today's sizes), else the initial
    /// one; and the history `historyFile` holds. `state` follows the state file from then on.
    static func makeModel(
        _ settings: DaemonSettings, historyFile: HistoryFile? = nil, state: StateReport? = nil
    ) -> SelectionModel {
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
                    log(
                        "the saved size \(saved) is not one of \(sizes.sizes); using \(sizes[index]) instead"
                    )
                }
            case .unusable(let reason, let movedTo):
                let kept = movedTo.map { "; it was kept as \($0)" } ?? ""
                log(
                    "the state file \(store.path) could not be used: \(reason)\(kept); starting at \(sizes[index])"
                )
            }
        }
        if let store, let state { state.follow(store) }
        // `index` comes from SizeSet's own lookups, so it is always valid.
        let selection = try! Selection(snapper: settings.snapper, committed: index)
        var history = History()
        if let historyFile {
            let loaded = historyFile.load()
            history = loaded.history
            if let problem = loaded.problem { log(problem) }
        }
        return SelectionModel(
            selection: selection, texts: settings.texts, store: store, history: history)
    }

    /// Takes the name, restores the selection, wires the adapters and runs the loop; returns how it ended.
    static func serve(_ start: Start, environment: [String: String]) -> Status {
        guard let session = own(SelectorBus.name, on: start.bus) else { return .unavailable }
        let loop = EventLoop()
        loop.add(session)
        let historyFile = historyFile(start.settings)
        let state = StateReport(
            path: start.settings.stateFile,
            saving: start.settings.stateFile != nil ? .saved : start.noStateChosen ? .off : .noHome)
        let model = makeModel(start.settings, historyFile: historyFile, state: state)
        let config = ConfigReport(start.configProblems)
        let adapters = wire(
            model: model, session: session, loop: loop, settings: start.settings, config: config,
            state: state, environment: environment, historyFile: historyFile)
        let status = run(adapters, model: model, session: session, loop: loop, reread: start.reread)
        // Closing drops what the connection keeps (exported tables, reusable messages) before exit,
        // so a leak checker sees it freed rather than held by a pointer it cannot follow.
        session.close()
        return status
    }

    /// The session bus connection, once it owns `name`; nil (and a log line) when it cannot.
    ///
    /// The name comes before everything that serves it (make bench: exec -> name owned): RequestName
    /// goes right behind Hello, one round trip for both. Nothing is dispatched before the loop runs:
    /// a call that arrives in between waits in libdbus's queue until the saved size is restored and
    /// the object that answers from it is exported. So a second snapsized, refused the name, never
    /// reads the state file, nor moves an unusable one aside under the running one.
    static func own(_ name: BusName, on bus: Result<BusRegistration, MethodError>) -> Connection? {
        let session: Connection
        let owned: Result<Bool, MethodError>
        do {
            (session, owned) = try bus.get().finish(requesting: name)
        } catch {
            log("cannot connect to the session bus (\(error.message))")
            return nil
        }
        switch owned {
        case .success(true):
            return session
        case .success(false):
            // The one line a person who typed `snapsized` in a terminal reads: in their language.
            log(
                tr(
                    "%s is already owned on this session bus: another snapsized is running",
                    name.rawValue))
        case .failure(let error):
            log("cannot serve \(name.rawValue): \(error.message)")
        }
        session.close()
        return nil
    }

    /// The adapters of one model, made by `wire`.
    struct Adapters {
        /// The accessible slider; nil with --no-accessibility.
        let accessibility: AccessibilityService?
        let object: SizeSelectorObject
        let previewGuard: PreviewGuard
        /// Nil with --no-state.
        let historyWriter: HistoryWriter?
        /// The settings in force, and the one place that changes them (SIGHUP, a run-time override).
        let settings: RunningSettings
    }

    /// Makes the model's adapters and registers them: the only place they are wired, and the order
    /// of what an accepted change sets off, all before the method's reply (the Dispatcher sends it
    /// once the handler returns):
    /// 1. the accessible events and the speech: a person waits on the screen reader
    ///    (keypress -> value event -> speech; make bench: call -> accessible-value event);
    /// 2. PropertiesChanged, then Committed, on the session bus;
    /// 3. the preview guard starts or stops watching a preview's owner, or restarts its timer;
    /// 4. the history file's write is scheduled for the next round, after the reply.
    /// Calls already queued together are applied in order and saved once, then answered (group
    /// commit), in the same order: what the accessibility bus held goes out first.
    /// The accessible slider shares the loop and the model; an accessibility bus that is missing or
    /// lost never ends the daemon. The model does not keep the adapters alive: the caller does.
    static func wire(
        model: SelectionModel, session: Connection, loop: EventLoop, settings: DaemonSettings,
        config: ConfigReport = ConfigReport(), state: StateReport = StateReport(),
        environment: [String: String],
        historyFile: HistoryFile? = nil
    ) -> Adapters {
        let commands = CommandReader(loop: loop, read: CommandReader.read(environment: environment))
        let accessibility =
            settings.accessibility
            ? AccessibilityService(
                model: model, session: session, loop: loop, commands: commands,
                announce: settings.announce, environment: environment)
            : nil
        accessibility?.bus.releasesGroupFirst = true
        let object = SizeSelectorObject(
            model: model, connection: session, commands: commands, focus: accessibility,
            config: config, state: state)
        config.onChange = { [unowned object] in object.announce(.configProblems) }
        // Announced on the next round: a save fails inside a group commit, which is then undone,
        // and an undone group's signals are dropped.
        // Unowned, as everywhere on the serving path: a weak reference to the object would make every
        // retain and release of it slow (make profile counts it in every call).
        state.onChange = { [unowned object, unowned loop] in
            _ = loop.schedule(after: 0) { [unowned object] in object.announce(.stateSaving) }
        }
        let previewGuard = PreviewGuard(
            model: model, connection: session, loop: loop, timeout: settings.previewTimeout)
        let historyWriter = historyFile.map { HistoryWriter(model: model, file: $0, loop: loop) }
        let inOrder: [(any ModelAdapter)?] = [accessibility, object, previewGuard, historyWriter]
        model.adapters = inOrder.compactMap { $0 }
        // The loop keeps its closures, so they hold the model unowned: a strong capture would be a
        // cycle that outlives serve, which valgrind reports as a definite leak in `make stress`.
        loop.groupCommit = GroupCommit(
            begin: { [unowned model] in model.beginGroup() },
            end: { [unowned model] in model.endGroup()?.dbusError })
        let running = RunningSettings(
            settings, model: model, config: config, previewGuard: previewGuard,
            accessibility: accessibility)
        return Adapters(
            accessibility: accessibility, object: object, previewGuard: previewGuard,
            historyWriter: historyWriter,
            settings: running)
    }

    /// Exports the object, joins the accessibility bus and runs the loop until SIGTERM/SIGINT or
    /// the session bus goes away; returns how it ended.
    static func run(
        _ adapters: Adapters, model: SelectionModel, session: Connection, loop: EventLoop,
        reread: @escaping () throws(InvalidValue) -> DaemonSettings
    ) -> Status {
        do {
            try adapters.object.start()
        } catch {
            log("cannot serve \(SelectorBus.name.rawValue): \(error.message)")
            return .unavailable
        }
        adapters.accessibility?.start()
        var status = Status.stopped
        session.onDisconnect = { [unowned loop] in
            log("the session bus went away; exiting so that the session can start me again")
            status = .busLost
            loop.stop()
        }
        loop.onSignal(SIGTERM) { [unowned loop] in loop.stop() }
        loop.onSignal(SIGINT) { [unowned loop] in loop.stop() }
        // SIGHUP (systemd's ExecReload=, `kill -HUP`): the config file again, applied where it can
        // be; a flood of them coalesced.
        let reloads = ReloadRequests(loop: loop) { [unowned settings = adapters.settings] merged in
            settings.reload(merged: merged, reread: reread)
        }
        loop.onSignal(SIGHUP) { reloads.requested() }
        loop.run()
        // Blocked again for the orderly stop: once the loop is gone its handlers are too, and a
        // SIGHUP still arriving (a flood of reloads) would end the process by its default action.
        var handledNoMore = sigset_t()
        sigemptyset(&handledNoMore)
        for signo in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&handledNoMore, signo) }
        pthread_sigmask(SIG_BLOCK, &handledNoMore, nil)
        if status == .stopped {
            // Orderly stop: end a preview as if cancelled, so watchers see the committed size again.
            _ = try? model.perform(as: nil) { $0.endPreview() }
            adapters.historyWriter?.flush()
            // Bounded: a session bus that stopped reading must not keep us from exiting (with the
            // accessibility bus's 0.5 s, SIGTERM ends the process within about a second).
            session.flush(timeout: 0.5)
        }
        adapters.accessibility?.stop()
        return status
    }
}
