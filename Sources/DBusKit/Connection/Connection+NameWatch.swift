/// A watch on one bus name's owner, from `Connection.watchNameOwner`; end it with `cancel`.
public struct NameWatch: Hashable, Sendable {
    let rule: String
    let subscription: SubscriptionToken
}

extension Connection {
    /// Calls `changed` with the new owner (a unique name), or nil when `name` lost its owner, each
    /// time the bus announces NameOwnerChanged for `name`.
    ///
    /// The match rule names this one name (arg0), so other clients coming and going never wake
    /// the process. Only signals the bus itself sent are believed.
    @discardableResult
    public func watchNameOwner(_ name: String, changed: @escaping (_ newOwner: String?) -> Void)
        -> NameWatch
    {
        let bus = BusName.bus.rawValue
        let rule =
            "type='signal',sender='\(bus)',interface='\(InterfaceName.bus.rawValue)',"
            + "member='NameOwnerChanged',arg0='\(name)'"
        addMatch(rule)
        let subscription = onSignal(interface: InterfaceName.bus.rawValue, member: "NameOwnerChanged") {
            signal in
            guard signal.sender == bus, signal.arguments.count == 3,
                signal.arguments[0].asString == name, let owner = signal.arguments[2].asString
            else { return }
            changed(owner.isEmpty ? nil : owner)
        }
        return NameWatch(rule: rule, subscription: subscription)
    }

    /// Ends a watch made with `watchNameOwner`: removes its match rule and its subscription.
    public func cancel(_ watch: NameWatch) {
        removeMatch(watch.rule)
        cancel(watch.subscription)
    }
}
