import DBusKit
import SnapCore

/// org.snapsize.SizeSelector1 at /org/snapsize/SizeSelector1: one table of methods, properties and
/// signals (dbus/org.snapsize.SizeSelector1.xml is the truth; a test compares them), handlers that
/// ask the model to change, and the announcements of what it reports changed.
public final class SizeSelectorObject {
    public static let busName = BusName(rawValue: "org.snapsize.SizeSelector1")!
    public static let path = ObjectPath(rawValue: "/org/snapsize/SizeSelector1")!
    public static let interface = InterfaceName(rawValue: "org.snapsize.SizeSelector1")!

    let model: SelectionModel
    let connection: Connection
    /// Ends a preview whose owner left the bus or went silent.
    let previewGuard: PreviewGuard
    /// Asks the accessible slider to take screen-reader focus; nil while there is no accessibility bus.
    public var focus: (() -> Void)?

    public init(model: SelectionModel, connection: Connection, loop: EventLoop, previewTimeout: Double) {
        self.model = model
        self.connection = connection
        self.previewGuard = PreviewGuard(model: model, connection: connection, loop: loop, timeout: previewTimeout)
    }

    /// Exports the object and starts announcing changes. Call before requesting the bus name, so
    /// that no call can arrive before the object is there.
    public func start() throws(MethodError) {
        model.observe { [unowned self] change in self.announce(change) }
        try connection.export(path: Self.path, interfaces: [table])
    }

    // MARK: The table

    public var table: InterfaceTable {
        let step = [Argument("index", "u"), Argument("size", "i"), Argument("atLimit", "b")]
        let selected = [Argument("index", "u"), Argument("size", "i")]
        let snapper = model.snapper
        return InterfaceTable(Self.interface.rawValue, methods: [
            Method("Increment", outputs: step) { [unowned self] _ throws(MethodError) in try self.step(by: 1) },
            Method("Decrement", outputs: step) { [unowned self] _ throws(MethodError) in try self.step(by: -1) },
            Method("StepBy", inputs: [Argument("steps", "i")], outputs: step) { [unowned self] call throws(MethodError) in
                try self.step(by: Int(try call.int32(0)))
            },
            Method("SetIndex", inputs: [Argument("index", "u")], outputs: selected) { [unowned self] call throws(MethodError) in
                let index = Int(try call.uint32(0))
                try self.perform { selection throws(SnapError) in try selection.set(index: index) }
                return self.committedReply
            },
            Method("SetSize", inputs: [Argument("size", "i")], outputs: selected) { [unowned self] call throws(MethodError) in
                let size = Int(try call.int32(0))
                try self.perform { selection throws(SnapError) in try selection.set(size: size) }
                return self.committedReply
            },
            Method("Preview", inputs: [Argument("x", "d")], outputs: selected) { [unowned self] call throws(MethodError) in
                let x = try call.double(0), owner = PreviewOwner(call.sender)
                try self.perform { selection throws(SnapError) in try selection.preview(x: x, by: owner) }
                self.previewGuard.touched(by: owner)
                return [.uint32(UInt32(self.model.shownIndex)), .int32(Int32(self.model.shownSize))]
            },
            Method("Commit", inputs: [Argument("x", "d")], outputs: selected) { [unowned self] call throws(MethodError) in
                let x = try call.double(0), owner = PreviewOwner(call.sender)
                try self.perform { selection throws(SnapError) in try selection.commit(x: x, by: owner) }
                return self.committedReply
            },
            Method("Cancel") { [unowned self] call throws(MethodError) in
                let owner = PreviewOwner(call.sender)
                try self.perform { selection throws(SnapError) in try selection.cancel(by: owner) }
                return []
            },
            Method("Focus") { [unowned self] _ throws(MethodError) in
                guard let focus = self.focus else {
                    throw MethodError(name: SizeSelectorError.noAccessibility, message:
                        "The accessible slider is not on an accessibility bus (snapsized was started with "
                        + "--no-accessibility, or no accessibility bus is running: start at-spi-bus-launcher, "
                        + "or turn on assistive technologies in your desktop settings).")
                }
                focus()
                return []
            },
        ], properties: [
            Property("Sizes", signature: "ai", emitsChange: .const) {
                .array(elementSignature: "i", snapper.sizes.sizes.map { .int32(Int32($0)) })
            },
            Property("SelectedIndex", signature: "u") { [unowned self] in .uint32(UInt32(self.model.committedIndex)) },
            Property("SelectedSize", signature: "i") { [unowned self] in .int32(Int32(self.model.committedSize)) },
            Property("ShownIndex", signature: "u") { [unowned self] in .uint32(UInt32(self.model.shownIndex)) },
            Property("ShownSize", signature: "i") { [unowned self] in .int32(Int32(self.model.shownSize)) },
            Property("Previewing", signature: "b") { [unowned self] in .boolean(self.model.isPreviewing) },
            Property("ValueText", signature: "s") { [unowned self] in .string(self.model.valueText) },
            Property("Label", signature: "s", emitsChange: .const) { [unowned self] in .string(self.model.presentation.label) },
            Property("TrackWidth", signature: "d", emitsChange: .const) { .double(snapper.track.width) },
            Property("TrackInset", signature: "d", emitsChange: .const) { .double(snapper.track.inset) },
            Property("Layout", signature: "s", emitsChange: .const) { .string(snapper.layout.rawValue) },
        ], signals: [
            SignalSpec("Committed", arguments: [Argument("index", "u"), Argument("size", "i")]),
        ])
    }

    // MARK: Handlers' shared parts

    private var committedReply: [DBusValue] {
        [.uint32(UInt32(model.committedIndex)), .int32(Int32(model.committedSize))]
    }

    private func perform(_ transition: (inout Selection) throws(SnapError) -> SelectionChange) throws(MethodError) {
        do {
            try model.perform(transition)
        } catch {
            throw error.dbusError
        }
    }

    private func step(by steps: Int) throws(MethodError) -> [DBusValue] {
        let result: StepResult
        do {
            result = try model.perform({ selection throws(SnapError) in try selection.step(by: steps) }, change: \.change)
        } catch {
            throw error.dbusError
        }
        return committedReply + [.boolean(result.atLimit)]
    }

    // MARK: Announcing changes

    /// PropertiesChanged with exactly the properties that changed, then Committed if the committed
    /// selection changed. A failed send is logged, never turned into a failed call: the change happened.
    private func announce(_ change: SelectionChange) {
        var changed: [(String, DBusValue)] = []
        changed.reserveCapacity(6)
        if change.committed != nil {
            changed.append(("SelectedIndex", .uint32(UInt32(model.committedIndex))))
            changed.append(("SelectedSize", .int32(Int32(model.committedSize))))
        }
        if change.shown != nil {
            changed.append(("ShownIndex", .uint32(UInt32(model.shownIndex))))
            changed.append(("ShownSize", .int32(Int32(model.shownSize))))
            changed.append(("ValueText", .string(model.valueText)))
        }
        if let previewing = change.previewing {
            changed.append(("Previewing", .boolean(previewing)))
            previewGuard.previewChanged()
        }
        do {
            try connection.emitPropertiesChanged(path: Self.path, interface: Self.interface, changed: changed)
            if change.committed != nil {
                try connection.emitSignal(path: Self.path, interface: Self.interface, member: "Committed",
                                          arguments: committedReply)
            }
        } catch {
            log("could not announce a change on the session bus: \(error)")
        }
    }
}
