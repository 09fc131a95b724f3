import DBusKit

/// Follows the desktop's accessibility focus for the daemon's quiet rule (SnapService's
/// `FocusedValue`): every `object:state-changed:focused` on the bus, from any application, and on
/// request an object's Value text and name and a connection leaving the bus.
///
/// What it costs: one match rule for the whole life of the connection; per focus change on the
/// desktop, the one or two focus events (the object losing focus and the one taking it) reach the
/// daemon, and nothing else unless the rule then asks (`shown(by:)`). Nothing runs between focus
/// changes (no timer, no polling).
public final class FocusWatch {
    /// How long an application has to answer the question about its object's Value. An answer
    /// that comes later is ignored: the daemon keeps speaking meanwhile (never silence on a guess).
    public static let answerTimeoutMilliseconds: Int32 = 500

    private let connection: Connection
    private var subscription: SubscriptionToken?
    /// The connection whose leaving is watched, while one is.
    private var leaving: (sender: String, watch: NameWatch)?

    /// An object of another application took focus (true) or lost it (false).
    public var onFocus: ((AccessibleRef, Bool) -> Void)?
    /// This daemon's own slider took focus (the daemon's `Focus`).
    public var onOwnFocus: (() -> Void)?
    /// The watched connection left the bus (its application exited or crashed).
    public var onLeft: ((String) -> Void)?

    public init(connection: Connection) { self.connection = connection }

    static let rule =
        "type='signal',interface='\(ObjectEvents.object.rawValue)',member='StateChanged',arg0='focused'"

    public func start() {
        guard subscription == nil else { return }
        connection.addMatch(Self.rule)
        subscription = connection.onSignal(
            interface: ObjectEvents.object.rawValue, member: "StateChanged"
        ) { [weak self] signal in self?.received(signal) }
    }

    public func stop() {
        follow(nil)
        guard let subscription else { return }
        connection.cancel(subscription)
        connection.removeMatch(Self.rule)
        self.subscription = nil
    }

    private func received(_ signal: SignalMessage) {
        guard signal.arguments.count >= 2, signal.arguments[0].asString == "focused",
            let detail = signal.arguments[1].asInt32
        else { return }
        if signal.sender == connection.uniqueName {
            if detail == 1 { onOwnFocus?() }
            return
        }
        onFocus?(AccessibleRef(name: signal.sender, path: signal.path), detail == 1)
    }

    /// What the quiet rule asks of an object that took focus: its Value's text and its name.
    public struct Shown: Equatable, Sendable {
        public var name: String
        public var valueText: String
        public init(name: String, valueText: String) {
            self.name = name
            self.valueText = valueText
        }
    }

    /// The Value text of `object` (`org.a11y.atspi.Value.Text`) and then, only when it has one, its
    /// name; nil when it has no Value, gives no text, or does not answer within
    /// `answerTimeoutMilliseconds`. One method call for an object without a Value, two with one.
    public func shown(by object: AccessibleRef, reply: @escaping (Shown?) -> Void) {
        get(ValueInterface.name, "Text", of: object) { [weak self] text in
            guard let self, let text else { return reply(nil) }
            self.get(AccessibleInterface.name, "Name", of: object) { name in
                reply(name.map { Shown(name: $0, valueText: text) })
            }
        }
    }

    private func get(
        _ interface: String, _ property: String, of object: AccessibleRef,
        reply: @escaping (String?) -> Void
    ) {
        do {
            try connection.callAsync(
                destination: object.name, path: object.path,
                interface: InterfaceName.properties.rawValue,
                member: "Get", arguments: [.string(interface), .string(property)],
                timeoutMilliseconds: Self.answerTimeoutMilliseconds
            ) { answer in
                guard case .variant(.string(let text))? = (try? answer.get())?.first else {
                    return reply(nil)
                }
                reply(text)
            }
        } catch {
            reply(nil)
        }
    }

    /// Watches `sender` leaving the bus (one match rule naming it), instead of the one watched
    /// before; nil watches none.
    public func follow(_ sender: String?) {
        guard leaving?.sender != sender else { return }
        if let leaving { connection.cancel(leaving.watch) }
        leaving = nil
        guard let sender else { return }
        let watch = connection.watchNameOwner(sender) { [weak self] owner in
            if owner == nil { self?.onLeft?(sender) }
        }
        leaving = (sender, watch)
    }
}
