import DBusKit
import SizeSelectorContract
import SnapCore
import SnapTexts

/// Asks the accessible slider to take screen-reader focus: what the D-Bus `Focus` method needs
/// from the accessible side, handed over by `Daemon`.
public protocol FocusRequester: AnyObject {
    /// True when the slider takes focus now, or will once it is on the bus it is joining; false
    /// when no accessibility bus is running.
    func requestFocus() -> Bool
}

/// org.snapsize.SizeSelector1 at /org/snapsize/SizeSelector1: one table of methods, properties and
/// signals (dbus/org.snapsize.SizeSelector1.xml is the truth; a test compares them), handlers that
/// ask the model to change, and the announcements of what it reports changed (`announce`, which
/// `Daemon` wires to the model).
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
    private var caller: String?
    /// The `ChangedBy` property: who made the latest change.
    let author = Author()

    /// Holds `ChangedBy` for the property getter, which captures it rather than `self`.
    final class Author {
        var changedBy = ClientIdentity.unknown
    }

    public init(model: SelectionModel, connection: Connection, focus: FocusRequester?) {
        self.model = model
        self.connection = connection
        self.focus = focus
        self.clients = ClientDirectory(connection: connection)
    }

    /// Exports the object. Call before the event loop runs: calls that arrive earlier wait in libdbus's
    /// queue until the loop dispatches them (the daemon requests its name first).
    public func start() throws(MethodError) {
        try connection.export(path: SelectorBus.path, interfaces: [table])
    }

    // MARK: The table

    public var table: InterfaceTable {
        InterfaceTable(SelectorBus.interface.rawValue, methods: [
            Method(.increment) { [unowned self] call throws(MethodError) in try self.step(by: 1, for: call) },
            Method(.decrement) { [unowned self] call throws(MethodError) in try self.step(by: -1, for: call) },
            Method(.stepBy) { [unowned self] call throws(MethodError) in try self.step(by: Int(try call.int32(0)), for: call) },
            Method(.setIndex) { [unowned self] call throws(MethodError) in
                let index = Int(try call.uint32(0))
                try self.perform(for: call) { selection throws(SnapError) in try selection.set(index: index) }
                return self.committedReply
            },
            Method(.setSize) { [unowned self] call throws(MethodError) in
                let size = Int(try call.int32(0))
                try self.perform(for: call) { selection throws(SnapError) in try selection.set(size: size) }
                return self.committedReply
            },
            Method(.preview) { [unowned self] call throws(MethodError) in
                // Named for people: a refusal to someone else says which program holds the preview.
                let x = try call.double(0)
                let client = self.clients.identity(of: call.sender)
                let owner = PreviewOwner(call.sender, name: Texts.clientName(busName: client.uniqueName, pid: client.pid,
                                                                             command: client.command))
                try self.preview(x: x, by: owner, for: call)
                return SelectorReply(index: self.model.shownIndex, size: self.model.shownSize).selectedBody
            },
            Method(.commit) { [unowned self] call throws(MethodError) in
                let x = try call.double(0), owner = PreviewOwner(call.sender)
                try self.perform(for: call) { selection throws(SnapError) in try selection.commit(x: x, by: owner) }
                return self.committedReply
            },
            Method(.cancel) { [unowned self] call throws(MethodError) in
                let owner = PreviewOwner(call.sender)
                try self.perform(for: call) { selection throws(SnapError) in try selection.cancel(by: owner) }
                return []
            },
            Method(.focus) { [unowned self] _ throws(MethodError) in
                guard let focus = self.focus else {
                    throw MethodError(.noAccessibility, Texts.accessibilityTurnedOff)
                }
                guard focus.requestFocus() else { throw MethodError(.noAccessibility, Texts.noAccessibilityBus) }
                return []
            },
        ], properties: SelectorProperty.allCases.map { [model, author] property in
            // The model and the author box themselves, not `unowned self`: no reference-count check on every read.
            Property(property) { property.encode(ModelValues(model: model, changedBy: author.changedBy)) }
        }, signals: [
            SignalSpec(.committed),
        ])
    }

    // MARK: Handlers' shared parts

    private var committedReply: [DBusValue] {
        SelectorReply(index: model.committedIndex, size: model.committedSize).selectedBody
    }

    private func perform(for call: MethodCall,
                         _ transition: (inout Selection) throws(SnapError) -> SelectionChange) throws(MethodError) {
        caller = call.sender
        defer { caller = nil }
        do {
            try model.perform(transition)
        } catch {
            throw error.dbusError
        }
    }

    private func preview(x: Double, by owner: PreviewOwner, for call: MethodCall) throws(MethodError) {
        caller = call.sender
        defer { caller = nil }
        do {
            try model.preview(x: x, by: owner)
        } catch {
            throw error.dbusError
        }
    }

    private func step(by steps: Int, for call: MethodCall) throws(MethodError) -> [DBusValue] {
        let result: StepResult
        caller = call.sender
        defer { caller = nil }
        do {
            result = try model.step(by: steps)
        } catch {
            throw error.dbusError
        }
        return SelectorReply(index: model.committedIndex, size: model.committedSize, atLimit: result.atLimit).stepBody
    }

    // MARK: Announcing changes

    /// New words (a reload): PropertiesChanged with the properties they changed. Logged if it fails.
    func announce(_ change: SelectionModel.TextsChange) {
        var changed: [SelectorProperty] = []
        if change.label { changed.append(.label) }
        if change.valueTexts { changed += [.valueTexts, .valueText] }
        do {
            try connection.emitPropertiesChanged(path: SelectorBus.path, interface: SelectorBus.interface,
                                                 names: changed.map(\.name))
        } catch {
            log("could not announce new words on the session bus: \(error)")
        }
    }

    /// A new list, track or layout (a reload; no client made it): PropertiesChanged with every
    /// property it changed, then Committed if the committed index or size changed. Logged if it fails.
    func announce(_ change: SelectionModel.SnapperChange) {
        var changed: [SelectorProperty] = []
        if change.sizes { changed.append(.sizes) }
        if change.trackWidth { changed.append(.trackWidth) }
        if change.trackInset { changed.append(.trackInset) }
        if change.layout { changed.append(.layout) }
        if change.valueTexts { changed.append(.valueTexts) }
        if change.committedIndex { changed += [.selectedIndex, .shownIndex] }
        if change.committedSize { changed += [.selectedSize, .shownSize] }
        if change.valueText { changed.append(.valueText) }
        let committed = change.committedIndex || change.committedSize
        if committed, author.changedBy != .unknown {
            author.changedBy = .unknown
            changed.append(.changedBy)
        }
        do {
            try connection.emitPropertiesChanged(path: SelectorBus.path, interface: SelectorBus.interface,
                                                 names: changed.map(\.name))
            if committed {
                try connection.emitSignal(path: SelectorBus.path, interface: SelectorBus.interface,
                                          member: SelectorSignal.committed.name, arguments: committedReply)
            }
        } catch {
            log("could not announce the new list on the session bus: \(error)")
        }
    }

    /// The properties each kind of change announces, in order (committed, shown, previewing), by
    /// the bits 1, 2 and 4 of the change; built once, as this runs on every change.
    private static let announced: [[String]] = (0..<8).map { bits in
        var names: [SelectorProperty] = []
        if bits & 1 != 0 { names += [.selectedIndex, .selectedSize] }
        if bits & 2 != 0 { names += [.shownIndex, .shownSize, .valueText] }
        if bits & 4 != 0 { names.append(.previewing) }
        return names.map(\.name)
    }

    /// PropertiesChanged with exactly the properties that changed (their values read by name from
    /// the exported table, so a getter and its announcement cannot disagree), then Committed if the
    /// committed selection changed. A failed send is logged, never turned into a failed call: the
    /// change happened.
    func announce(_ change: SelectionChange) {
        var changed = Self.announced[(change.committed != nil ? 1 : 0) | (change.shown != nil ? 2 : 0)
                                     | (change.previewing != nil ? 4 : 0)]
        // Only when it differs from the last change's: a client's run of changes names it once.
        let by = caller.map(clients.identity(of:)) ?? .unknown
        if by != author.changedBy {
            author.changedBy = by
            changed.append(SelectorProperty.changedBy.name)
        }
        do {
            try connection.emitPropertiesChanged(path: SelectorBus.path, interface: SelectorBus.interface, names: changed)
            if change.committed != nil {
                try connection.emitSignal(path: SelectorBus.path, interface: SelectorBus.interface,
                                          member: SelectorSignal.committed.name, arguments: committedReply)
            }
        } catch {
            log("could not announce a change on the session bus: \(error)")
        }
    }
}
