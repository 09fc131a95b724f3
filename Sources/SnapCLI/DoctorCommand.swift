import AtSpi
import DBusKit
import SizeSelectorContract
import SnapTexts

/// `snapsizectl doctor`: checks, in order, what a screen reader needs, and says which step fails.
struct DoctorCommand: Command {
    static let name = "doctor"
    static let abstract = tr(
        "Check the session bus, the daemon, the accessibility bus, the registry and the slider.")
    static let discussion =
        tr(
            """
            Checks, in order, and stops at the first failure with what to do about it:
              1. session bus           DBUS_SESSION_BUS_ADDRESS (else the socket $XDG_RUNTIME_DIR/bus) answers
              2. snapsized             owns org.snapsize.SizeSelector1, or D-Bus activation starts it
              3. accessibility bus     AT_SPI_BUS_ADDRESS, else org.a11y.Bus.GetAddress on the session bus
              4. registry              org.a11y.atspi.Registry runs on the accessibility bus
              5. application           "snapsize" is among the registry desktop's applications
              6. slider                its child has role slider, the daemon's label as name, the shown index as value
            That is what Orca will see. Exit 0 when all pass, 69 when one fails. With --json one object:
              {"ok":false,"failed":"accessibility bus","checks":[{"step":"session bus","status":"ok","detail":"..."},...]}
            """) + "\n"
        + tr(
            """
            Once snapsized passes, two more checks follow whatever the others found: 7. config, whether its
            config file was used (if not: the file, the line, why, and what to do), and 8. saving, where
            the committed size is saved, or why it is not (a failure when it cannot be). In --json the
            snapsized check also has them as configProblems, stateFile (null when nothing is saved) and
            stateSaving (saved, off, no-home or failing).
            """)
    static let arguments: [ArgumentSpec] = [CommonArguments.json, CommonArguments.timeout]

    let json: Bool
    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.has("json")
        daemon = try CallOptions(arguments)
    }

    struct Check {
        enum Status: String { case ok, fail, skip }
        let step: String
        let name: String
        let title: String
        var status = Status.skip
        var detail = ""
        var fix = ""
        /// What `--json` adds to the snapsized check: the config file's problems, where the size is saved.
        var machineNotes: [(String, JSON)] = []
    }

    /// A failed step: what went wrong and what to do.
    struct StepFailure: Error {
        let detail: String
        let fix: String
    }

    /// The step words are for machines (`--json`'s "step" and "failed"); names and titles are for people.
    static let steps: [(step: String, name: String, title: String)] = [
        ("session bus", tr("session bus"), tr("session bus reachable")),
        (
            "snapsized", "snapsized",
            tr("snapsized owns org.snapsize.SizeSelector1 (or can be activated)")
        ),
        ("accessibility bus", tr("accessibility bus"), tr("accessibility bus reachable")),
        ("registry", tr("registry"), tr("accessibility registry running")),
        ("application", tr("application"), tr("snapsize in the registry's desktop")),
        ("slider", tr("slider"), tr("slider with role, name and value"))
    ]

    /// What snapsized reports about itself, checked once it answers, whatever the accessibility steps found.
    static let reports: [(step: String, name: String, title: String)] = [
        ("config", tr("config"), tr("config file")),
        ("saving", tr("saving"), tr("where the committed size is saved"))
    ]

    func run(_ context: CommandContext) throws(CommandFailure) {
        var checks = (Self.steps + Self.reports).map {
            Check(step: $0.step, name: $0.name, title: $0.title)
        }
        let probe = DoctorProbe(environment: context.environment, timeout: daemon.timeoutMilliseconds)
        let actions: [() throws(StepFailure) -> String] = [
            probe.sessionBus, probe.daemon, probe.accessibilityBus, probe.registry, probe.application,
            probe.slider
        ]
        for (index, action) in actions.enumerated() {
            do {
                checks[index].detail = try action()
                checks[index].status = .ok
                if checks[index].step == "snapsized", let state = probe.state {
                    checks[index].machineNotes =
                        [("configProblems", .array(state.configProblems.map { .string($0) }))]
                        + StatusCommand.saving(state)
                }
            } catch {
                checks[index].status = .fail
                checks[index].detail = error.detail
                checks[index].fix = error.fix
                break
            }
        }
        if let state = probe.state {
            let reports = [Self.config(state), Self.savingCheck(state)]
            for (offset, result) in reports.enumerated() {
                let index = actions.count + offset
                switch result {
                case .success(let detail):
                    checks[index].status = .ok
                    checks[index].detail = detail
                case .failure(let failure):
                    checks[index].status = .fail
                    checks[index].detail = failure.detail
                    checks[index].fix = failure.fix
                }
            }
        }
        let failed = checks.first { $0.status == .fail }
        let console = context.console
        if json {
            console.line(
                JSON.object([
                    ("ok", .bool(failed == nil)), ("failed", failed.map { .string($0.step) } ?? .null),
                    (
                        "checks",
                        .array(
                            checks.map { check in
                                var members: [(String, JSON)] = [
                                    ("step", .string(check.step)),
                                    ("status", .string(check.status.rawValue)),
                                    ("detail", .string(check.detail))
                                ]
                                if !check.fix.isEmpty { members.append(("fix", .string(check.fix))) }
                                members += check.machineNotes
                                return .object(members)
                            })
                    )
                ]).text)
        } else {
            for check in checks {
                let mark =
                    switch check.status {
                    case .ok: "[ok]  ";
                    case .fail: "[FAIL]";
                    case .skip: "[skip]"
                    }
                // TRANSLATORS: a doctor check and what it found, e.g. "session bus reachable: unix:path=/run/user/1000/bus".
                let found = tr("%s: %s", check.title, check.detail)
                console.line("\(mark) " + (check.detail.isEmpty ? check.title : found))
                if !check.fix.isEmpty { console.line("       " + tr("to fix: %s", check.fix)) }
            }
        }
        if let failed {
            throw CommandFailure(.unavailable, tr("doctor: the '%s' step failed", failed.name))
        }
    }
}

extension DoctorCommand {
    /// The config file: used (or none), or the daemon's reasons for not using it (each names the file
    /// and the line, in the daemon's language) and what to do.
    static func config(_ state: SelectorState) -> Result<String, StepFailure> {
        guard !state.configProblems.isEmpty else { return .success(tr("no problem reported")) }
        return .failure(
            StepFailure(
                detail: state.configProblems.joined(separator: "; "),
                fix: tr(
                    "correct or remove that line, then apply the file: systemctl --user reload snapsized "
                        + "(or restart snapsized); 'man snapsized' lists the keys")))
    }

    /// Where the size is saved: a failure when it should be saved and cannot be.
    static func savingCheck(_ state: SelectorState) -> Result<String, StepFailure> {
        switch StateSaving(wire: state.stateSaving) {
        case .noHome?:
            return .failure(
                StepFailure(
                    detail: saving(state),
                    fix: tr(
                        "give the session a home folder (HOME or XDG_STATE_HOME), or choose a file: state-file in the config file"
                    )))
        case .failing?:
            return .failure(
                StepFailure(
                    detail: saving(state),
                    fix: tr(
                        "make that folder writable (or free space on its disk); the next change is saved, or choose another file: state-file in the config file"
                    )))
        default:
            return .success(saving(state))
        }
    }

    /// Where the committed size is saved, or why it is not, for the person.
    static func saving(_ state: SelectorState) -> String {
        switch StateSaving(wire: state.stateSaving) {
        case .saved?: Texts.savedIn(state.stateFile)
        case .off?: Texts.notSavedChosen
        case .noHome?: Texts.notSavedNoHome
        case .failing(let why)?: Texts.cannotSave(in: state.stateFile, because: why)
        case nil: Texts.savedIn(state.stateFile) + " (" + state.stateSaving + ")"
        }
    }
}

/// The checks themselves, in raw D-Bus calls through DBusKit; each step relies on the ones before.
final class DoctorProbe {
    typealias StepFailure = DoctorCommand.StepFailure
    let environment: [String: String]
    let timeout: Int32
    var session: Connection?
    var state: SelectorState?
    var accessibility: Connection?
    var app: (bus: String, path: ObjectPath)?

    init(environment: [String: String], timeout: Int32) {
        self.environment = environment
        self.timeout = timeout
    }

    /// Says which address it used and where from. Starting a bus of one's own is suggested only when
    /// there is none at $XDG_RUNTIME_DIR/bus either: a second bus would hide the session's daemon.
    func sessionBus() throws(StepFailure) -> String {
        guard let found = SessionBusAddress.find(environment: environment) else {
            throw StepFailure(
                detail: SessionBusAddress.absenceText(environment: environment),
                fix: tr(
                    "run inside a desktop session (Debian: install dbus-user-session and log in again), "
                        + "or start a bus for this shell: dbus-run-session -- $SHELL"))
        }
        do {
            session = try Connection(address: found.address)
        } catch {
            var fix = tr(
                "the session bus is gone or unreachable; log in again, or check %s", found.origin)
            if found.source == .environment,
                let path = SessionBusAddress.runtimeSocketPath(environment: environment),
                let fallback = SessionBusAddress.find(
                    environment: environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" })
            {
                fix = tr(
                    "DBUS_SESSION_BUS_ADDRESS is stale, but your session bus is at %s: "
                        + "unset DBUS_SESSION_BUS_ADDRESS (or export DBUS_SESSION_BUS_ADDRESS=%s)", path,
                    fallback.address)
            }
            throw StepFailure(
                detail: tr("cannot connect to %s from %s (%s)", found.address, found.origin, error),
                fix: fix)
        }
        return tr("%s (from %s)", found.address, found.origin)
    }

    /// Owned, or activatable and started by a Ping (activation is what any client call would do).
    private func ensureRunning(_ name: String, on connection: Connection) throws(MethodError) -> String {
        if try connection.nameHasOwner(name, timeoutMilliseconds: timeout) {
            let owner = try? connection.nameOwner(name, timeoutMilliseconds: timeout)
            return owner.map { tr("running as %s", $0) } ?? tr("running")
        }
        guard try connection.activatableNames(timeoutMilliseconds: timeout).contains(name) else {
            throw MethodError(.serviceUnknown, tr("%s has no owner and is not activatable", name))
        }
        _ = try connection.call(
            destination: name, path: ObjectPath.root, interface: InterfaceName.peer.rawValue,
            member: "Ping", timeoutMilliseconds: timeout)
        return tr("started by D-Bus activation")
    }

    func daemon() throws(StepFailure) -> String {
        guard let session else { throw StepFailure(detail: tr("no session bus"), fix: "") }
        let status: String
        do {
            status = try ensureRunning(SelectorBus.name.rawValue, on: session)
            let client = DBusSizeSelectorClient(connection: session, timeoutMilliseconds: timeout)
            state = try client.state()
        } catch {
            throw StepFailure(
                detail: "\(error)", fix: Installation.current().daemonFix(home: environment["HOME"]))
        }
        guard let state else { return status }
        // TRANSLATORS: how snapsized runs, then its label and value text: "running as :1.42, Circle size 60 points".
        return tr("%1$s, %2$s %3$s", status, state.label, state.valueText)
    }

    func accessibilityBus() throws(StepFailure) -> String {
        guard let session else { throw StepFailure(detail: tr("no session bus"), fix: "") }
        let address: String
        let source: String
        if let fromEnvironment = environment["AT_SPI_BUS_ADDRESS"], !fromEnvironment.isEmpty {
            address = fromEnvironment
            source = "AT_SPI_BUS_ADDRESS"
        } else {
            do {
                let reply = try session.call(
                    destination: AccessibilityBus.launcherName, path: AccessibilityBus.launcherPath,
                    interface: AccessibilityBus.launcherName, member: "GetAddress",
                    timeoutMilliseconds: timeout)
                guard let text = reply.first?.asString, !text.isEmpty else {
                    throw MethodError(.failed, "org.a11y.Bus.GetAddress returned no address")
                }
                address = text
                source = "org.a11y.Bus.GetAddress"
            } catch {
                throw StepFailure(
                    detail: tr(
                        "AT_SPI_BUS_ADDRESS is not set and org.a11y.Bus cannot tell the address (%s)",
                        "\(error)"),
                    fix: tr(
                        "install at-spi2-core and turn on assistive technologies (GNOME: gsettings set "
                            + "org.gnome.desktop.interface toolkit-accessibility true), or start "
                            + "/usr/libexec/at-spi-bus-launcher in this session"))
            }
        }
        do {
            accessibility = try Connection(address: address)
        } catch {
            throw StepFailure(
                detail: tr("cannot connect to %s from %s (%s)", address, source, error),
                fix: tr(
                    "the accessibility bus is gone; restart at-spi-bus-launcher (or log in again) "
                        + "and check AT_SPI_BUS_ADDRESS"))
        }
        return tr("%s (from %s)", address, source)
    }

    func registry() throws(StepFailure) -> String {
        guard let accessibility else { throw StepFailure(detail: tr("no accessibility bus"), fix: "") }
        do {
            return try ensureRunning(AtspiPaths.registryName, on: accessibility)
        } catch {
            throw StepFailure(
                detail: "\(error)",
                fix: tr("start /usr/libexec/at-spi2-registryd (at-spi-bus-launcher normally starts it)"))
        }
    }

    private func get(
        _ connection: Connection, _ bus: String, _ path: ObjectPath, _ interface: String,
        _ property: String
    )
        throws(MethodError) -> DBusValue
    {
        let reply = try connection.call(
            destination: bus, path: path, interface: InterfaceName.properties.rawValue,
            member: "Get", arguments: [.string(interface), .string(property)],
            timeoutMilliseconds: timeout)
        guard let value = reply.first?.asVariant else {
            throw MethodError(.failed, "unexpected reply to Get \(interface).\(property)")
        }
        return value
    }

    private func children(_ connection: Connection, _ bus: String, _ path: ObjectPath)
        throws(MethodError) -> [(String, ObjectPath)]
    {
        let reply = try connection.call(
            destination: bus, path: path, interface: AccessibleInterface.name,
            member: "GetChildren", timeoutMilliseconds: timeout)
        guard let list = reply.first?.asArray else {
            throw MethodError(.failed, "unexpected reply to GetChildren")
        }
        return list.compactMap { element in
            guard let members = element.asStructure, members.count == 2, let name = members[0].asString,
                let path = members[1].asObjectPath
            else { return nil }
            return (name, path)
        }
    }

    func application() throws(StepFailure) -> String {
        guard let accessibility else { throw StepFailure(detail: tr("no accessibility bus"), fix: "") }
        let applications: [(String, ObjectPath)]
        do {
            applications = try children(accessibility, AtspiPaths.registryName, AtspiPaths.root)
        } catch {
            throw StepFailure(
                detail: tr("the registry's desktop cannot be listed (%s)", error),
                fix: tr("restart the registry (/usr/libexec/at-spi2-registryd)"))
        }
        var names: [String] = []
        for (bus, path) in applications {
            let name =
                (try? get(accessibility, bus, path, AccessibleInterface.name, "Name"))?.asString ?? "?"
            names.append(name)
            if name == "snapsize" {
                app = (bus, path)
                return tr("%s at %s", bus, path.rawValue)
            }
        }
        let seen =
            names.isEmpty
            ? tr("no applications") : tr("only %s", Texts.enumeration(names.map { "'\($0)'" }))
        throw StepFailure(
            detail: tr("'snapsize' is not among the registry's applications (%s)", seen),
            fix: tr(
                "start snapsized without --no-accessibility (it joins the accessibility bus by itself), "
                    + "e.g. systemctl --user restart snapsized"))
    }

    func slider() throws(StepFailure) -> String {
        guard let accessibility, let application = app, let state else {
            throw StepFailure(detail: tr("nothing to look at"), fix: "")
        }
        let fix = tr(
            "snapsized's accessible object is incomplete; restart it, and report a bug if this persists")
        do {
            guard var (bus, path) = try children(accessibility, application.bus, application.path).first
            else {
                throw StepFailure(detail: tr("the snapsize application has no children"), fix: fix)
            }
            func roleOf() throws(MethodError) -> UInt32? {
                try accessibility.call(
                    destination: bus, path: path, interface: AccessibleInterface.name,
                    member: "GetRole", timeoutMilliseconds: timeout
                ).first?.asUInt32
            }
            var role = try roleOf()
            // The slider lives in the application's frame (its first child).
            if role == Role.frame.rawValue, let inner = try children(accessibility, bus, path).first {
                (bus, path) = inner
                role = try roleOf()
            }
            guard role == Role.slider.rawValue else {
                throw StepFailure(
                    detail: tr(
                        "its child has role %s, not slider (%s)", role.map(String.init) ?? "?",
                        Role.slider.rawValue),
                    fix: fix)
            }
            let name = try get(accessibility, bus, path, AccessibleInterface.name, "Name").asString ?? ""
            guard name == state.label else {
                throw StepFailure(
                    detail: tr("the slider is named '%s', not '%s'", name, state.label), fix: fix)
            }
            let value = try get(accessibility, bus, path, ValueInterface.name, "CurrentValue").asDouble
            // The daemon may have moved since `state` was read: compare with a fresh one.
            let shown =
                (try? DBusSizeSelectorClient(connection: session!, timeoutMilliseconds: timeout).state()
                    .shownIndex)
                ?? state.shownIndex
            guard value == Double(shown) else {
                throw StepFailure(
                    detail: tr(
                        "its value is %s, but snapsized shows index %s",
                        value.map { String($0) } ?? tr("not a number"), shown), fix: fix)
            }
            return tr("'%s', role slider, value %s (%s)", name, shown, state.valueText(index: shown))
        } catch let failure as StepFailure {
            throw failure
        } catch {
            throw StepFailure(detail: "\(error)", fix: fix)
        }
    }
}
