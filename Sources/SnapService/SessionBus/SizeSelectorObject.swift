import DBusKit
import SizeSelectorContract
import SnapCore
import SnapTexts

/// Asks the accessible slider to take screen-reader focus: what the D-Bus `Focus` method needs
/// from the accessible side, handed over by `Daemon`.
public protocol FocusRequester: AnyObject {
    /// Gives the slider focus now, or once it is on the bus it is joining; `answer` runs once, at
    /// once or later on the loop: nil when the accessibility bus has taken the focus events, else why not.
    func requestFocus(_ answer: @escaping (FocusFailure?) -> Void)
}

/// org.snapsize.SizeSelector1 at /org/snapsize/SizeSelector1: one table of methods, properties and
/// signals (dbus/org.snapsize.SizeSelector1.xml is the truth; a test compares them), handlers that
/// ask the model to change, and the announcements of what it reports changed (a `ModelAdapter`).
public final class SizeSelectorObject {
    let model: SelectionModel
    let connection: Connection
    /// The accessible slider, for `Focus`; nil with --no-accessibility.
    let focus: FocusRequester?
    /// Callers' processes, for `ChangedBy` and for naming a preview's holder.
    let clients: ClientDirectory
    /// The caller whose request is being performed (nil between calls): a change announced while it
    /// is set was made by it; any other change (a timeout, an owner that left, the accessible
    /// slider) by no client.
    private var caller: ClientIdentity?
    /// The `ChangedBy` property: who made the latest change.
    let changedByBox = ChangedByBox()
    /// The `ConfigProblems` property.
    let config: ConfigReport
    /// The `StateFile` and `StateSaving` properties.
    let state: StateReport
    /// The `LastChangeKind` last announced.
    private var announcedKind: ChangeKind?

    /// Holds `ChangedBy` for the property getter, which captures it rather than `self`.
    final class ChangedByBox {
        var changedBy = ClientIdentity.unknown
    }

    init(
        model: SelectionModel, connection: Connection, commands: CommandReader, focus: FocusRequester?,
        config: ConfigReport = ConfigReport(), state: StateReport = StateReport()
    ) {
        self.model = model
        self.config = config
        self.state = state
        self.connection = connection
        self.focus = focus
        self.clients = ClientDirectory(connection: connection, commands: commands)
        clients.learned = { [unowned self] identity in self.learned(identity) }
        announcedKind = model.lastChangeKind
    }

    /// Exports the object. Call before the event loop runs: calls that arrive earlier wait in libdbus's
    /// queue until the loop dispatches them (the daemon requests its name first).
    public func start() throws(MethodError) {
        try connection.export(path: SelectorBus.path, interfaces: [table])
        clients.askAsClientsConnect()
    }

    // MARK: The table

    public var table: InterfaceTable {
        InterfaceTable(
            SelectorBus.interface.rawValue,
            methods: [
                Method(.increment) { [unowned self] call throws(MethodError) in
                    try self.step(by: 1, for: call)
                },
                Method(.decrement) { [unowned self] call throws(MethodError) in
                    try self.step(by: -1, for: call)
                },
                Method(.stepBy) { [unowned self] call throws(MethodError) in
                    try self.step(by: Int(try call.int32(0)), for: call)
                },
                Method(.setIndex) { [unowned self] call throws(MethodError) in
                    let index = Int(try call.uint32(0))
                    try self.perform(for: call, .set) { selection throws(SnapError) in
                        try selection.set(index: index)
                    }
                    return self.committedReply
                },
                Method(.setSize) { [unowned self] call throws(MethodError) in
                    let size = Int(try call.int32(0))
                    try self.perform(for: call, .set) { selection throws(SnapError) in
                        try selection.set(size: size)
                    }
                    return self.committedReply
                },
                Method(.preview) { [unowned self] call throws(MethodError) in
                    // Named for people: a refusal to someone else says which program holds the preview.
                    let x = try call.double(0)
                    try self.asking(call) { client throws(ModelError) in
                        let owner = PreviewOwner(
                            call.sender,
                            name: Texts.clientName(
                                busName: client.uniqueName, pid: client.pid,
                                command: client.command))
                        try self.model.preview(x: x, by: owner)
                    }
                    return SelectorReply(index: self.model.shownIndex, size: self.model.shownSize)
                        .selectedBody
                },
                Method(.commit) { [unowned self] call throws(MethodError) in
                    let x = try call.double(0), owner = PreviewOwner(call.sender)
                    try self.perform(for: call, .commit) { selection throws(SnapError) in
                        try selection.commit(x: x, by: owner)
                    }
                    return self.committedReply
                },
                Method(.cancel) { [unowned self] call throws(MethodError) in
                    let owner = PreviewOwner(call.sender)
                    try self.perform(for: call, nil) { selection throws(SnapError) in
                        try selection.cancel(by: owner)
                    }
                    return []
                },
                Method(.undo) { [unowned self] call throws(MethodError) in
                    try self.asking(call) { client throws(ModelError) in try self.model.undo(by: client)
                    }
                    return self.committedReply
                },
                Method(.redo) { [unowned self] call throws(MethodError) in
                    try self.asking(call) { client throws(ModelError) in try self.model.redo(by: client)
                    }
                    return self.committedReply
                },
                Method(.getHistory) { [unowned self] call throws(MethodError) in
                    let limit = Int(clamping: try call.uint32(0))
                    return [
                        .array(
                            elementSignature: HistoryEntry.signature,
                            self.model.history.newest(limit).map(\.value))
                    ]
                },
                Method(.focus) { [unowned self] _ throws(MethodError) in
                    // Answered when the accessibility bus has the focus events, not before: success
                    // must mean a screen reader can hear it. The loop does not wait meanwhile.
                    guard let focus = self.focus else { throw FocusFailure.turnedOff.dbusError }
                    let later = self.connection.answerLater()
                    focus.requestFocus { failure in
                        if let failure { later.fail(failure.dbusError) } else { later.succeed() }
                    }
                    return []
                }
            ],
            properties: SelectorProperty.allCases.map { [model, changedByBox, config, state] property in
                // The model and the boxes themselves, not `unowned self`: no reference-count check on every read.
                Property(property) {
                    property.encode(
                        ModelValues(
                            model: model, changedBy: changedByBox.changedBy,
                            configProblems: config.problems,
                            state: state))
                }
            },
            signals: [
                SignalSpec(.committed)
            ])
    }

    // MARK: Handlers' shared parts

    private var committedReply: [DBusValue] {
        SelectorReply(index: model.committedIndex, size: model.committedSize).selectedBody
    }

    /// Runs `request` for the caller of `call` (who it is, for ChangedBy and the history), turning a
    /// refusal into its bus error.
    @discardableResult
    private func asking<Result>(
        _ call: MethodCall, _ request: (ClientIdentity) throws(ModelError) -> Result
    ) throws(MethodError) -> Result {
        let client = clients.identity(of: call.sender)
        caller = client
        defer { caller = nil }
        do {
            return try request(client)
        } catch {
            throw named(error).dbusError
        }
    }

    /// A transition for the caller; `kind` is what its commit is recorded as (nil: it never commits).
    private func perform(
        for call: MethodCall, _ kind: ChangeKind?,
        _ transition: (inout Selection) throws(SnapError) -> SelectionChange
    ) throws(MethodError) {
        try asking(call) { client throws(ModelError) in
            try model.perform(as: kind.map { ChangeCause($0, by: client) }, transition)
        }
    }

    private func step(by steps: Int, for call: MethodCall) throws(MethodError) -> [DBusValue] {
        let result = try asking(call) { client throws(ModelError) in
            try model.step(by: steps, as: ChangeCause(.step, by: client))
        }
        return SelectorReply(
            index: model.committedIndex, size: model.committedSize, atLimit: result.atLimit
        ).stepBody
    }

    /// A refusal because someone else holds a preview names that holder as it is known now (its
    /// process may have become known since the preview opened).
    private func named(_ error: ModelError) -> ModelError {
        guard case .refused(.previewActive(let owner)) = error else { return error }
        let client = clients.identity(of: owner.id)
        let name = Texts.clientName(busName: client.uniqueName, pid: client.pid, command: client.command)
        return .refused(.previewActive(owner: PreviewOwner(owner.id, name: name)))
    }

    // MARK: Announcing changes

    /// The bus said which process a client is: when `ChangedBy` names that client (by its unique
    /// name alone until now), it is announced again with the process.
    private func learned(_ identity: ClientIdentity) {
        model.learned(identity)
        guard changedByBox.changedBy.uniqueName == identity.uniqueName,
            changedByBox.changedBy != identity
        else { return }
        changedByBox.changedBy = identity
        do {
            try connection.emitPropertiesChanged(
                path: SelectorBus.path, interface: SelectorBus.interface,
                names: [SelectorProperty.changedBy.name])
        } catch {
            log("could not announce who made a change on the session bus: \(error)")
        }
    }

    /// What one fact sets off on the session bus: the properties it changes (in PropertiesChanged),
    /// whether it is a change of the committed selection (Committed follows), and whether it is a
    /// change of the selection someone made (`ChangedBy` names who).
    struct Announcement {
        var properties: [SelectorProperty] = []
        var committed = false
        var authored = false
        /// A change the history recorded: `LastChangeKind` names its kind when it differs from the last one.
        var recorded = false

        mutating func add(_ other: Announcement) {
            properties += other.properties
            committed = committed || other.committed
            authored = authored || other.authored
            recorded = recorded || other.recorded
        }
    }

    /// Each fact's announcement: the one place that says which published property follows from which fact.
    static func announcement(of fact: ModelFact) -> Announcement {
        switch fact {
        case .sizes: Announcement(properties: [.sizes])
        case .trackWidth: Announcement(properties: [.trackWidth])
        case .trackInset: Announcement(properties: [.trackInset])
        case .layout: Announcement(properties: [.layout])
        case .label: Announcement(properties: [.label])
        case .valueTexts: Announcement(properties: [.valueTexts])
        case .committedIndex: Announcement(properties: [.selectedIndex], committed: true, authored: true)
        case .committedSize: Announcement(properties: [.selectedSize], committed: true, authored: true)
        case .shownIndex: Announcement(properties: [.shownIndex], authored: true)
        case .shownSize: Announcement(properties: [.shownSize], authored: true)
        case .valueText: Announcement(properties: [.valueText])
        case .previewing: Announcement(properties: [.previewing], authored: true)
        case .canUndo: Announcement(properties: [.canUndo])
        case .canRedo: Announcement(properties: [.canRedo])
        // A change's kind is in the same PropertiesChanged (when it differs from the last), so a
        // watcher tells an undo from a step. Only the kind: a few values, so the message is one of
        // the few the templates keep (the whole entry, with its time, would make each one new and
        // cost more to build than the rest of the call); GetHistory has the rest.
        case .lastChange: Announcement(recorded: true)
        case .stoppedAtEnd, .previewTouched: Announcement()
        }
    }

    typealias Prepared = (names: [String], committed: Bool, authored: Bool, recorded: Bool)

    /// The announcement of each set of state facts seen so far (names ready to send), made from
    /// `announcement(of:)` the first time the set occurs: this runs on every change, and the same
    /// few sets recur (a step, a preview, a commit), so a short list searched in order is quicker
    /// than hashing. Bounded, in case reloads bring new sets without end.
    private var prepared: [(facts: ModelFacts, announcement: Prepared)] = []

    private func announcement(of facts: ModelFacts) -> Prepared {
        let state = facts.subtracting(.events)
        for entry in prepared where entry.facts == state { return entry.announcement }
        var combined = Announcement()
        for fact in state.cases { combined.add(Self.announcement(of: fact)) }
        let made = (
            combined.properties.map(\.name), combined.committed, combined.authored, combined.recorded
        )
        if prepared.count < 32 { prepared.append((state, made)) }
        return made
    }
}

extension SizeSelectorObject: ModelAdapter {
    /// PropertiesChanged with exactly the properties that changed (their values read by name from
    /// the exported table, so a getter and its announcement cannot disagree), then Committed if the
    /// committed selection changed. A change of the selection names who made it in `ChangedBy` (the
    /// caller being answered; no client for a timeout, an owner that left, the accessible slider or a
    /// reload), only when it differs from the last one: a client's run of changes names it once.
    /// A failed send is logged, never turned into a failed call: the change happened.
    public func modelChanged(_ change: ModelChange) {
        let announced = announcement(of: change.facts)
        var names = announced.names
        if announced.authored {
            let by = caller ?? .unknown
            if by != changedByBox.changedBy {
                changedByBox.changedBy = by
                names.append(SelectorProperty.changedBy.name)
            }
        }
        if announced.recorded {
            let kind = model.lastChangeKind
            if kind != announcedKind {
                announcedKind = kind
                names.append(SelectorProperty.lastChangeKind.name)
            }
        }
        guard !names.isEmpty else { return }
        do {
            try connection.emitPropertiesChanged(
                path: SelectorBus.path, interface: SelectorBus.interface, names: names)
            if announced.committed {
                // State: it carries the committed index and size now, so the latest is enough.
                try connection.emitSignal(
                    path: SelectorBus.path, interface: SelectorBus.interface,
                    member: SelectorSignal.committed.name, arguments: committedReply, as: .state)
            }
        } catch {
            log("could not announce a change on the session bus: \(error)")
        }
    }
}

extension SizeSelectorObject {
    /// PropertiesChanged with `property` alone, for one that changes apart from the selection:
    /// `StateSaving` (saving started to fail, or works again), `ConfigProblems` (a reload).
    func announce(_ property: SelectorProperty) {
        do {
            try connection.emitPropertiesChanged(
                path: SelectorBus.path, interface: SelectorBus.interface, names: [property.name])
        } catch {
            log("cannot announce \(property.name): \(error.message)")
        }
    }
}
