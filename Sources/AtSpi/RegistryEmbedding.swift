import DBusKit
import SystemCalls

/// Registers the application with the AT-SPI registry (`Socket.Embed`), and again — exactly once —
/// each time the registry gets a new owner (it was restarted).
///
/// The registry does not de-duplicate: a second Embed to the same registry shows the application
/// twice. So we remember which registry instance (unique name) holds our registration, and embed
/// only when the current owner differs; an Embed that is in flight while the owner changes is
/// checked against the owner when its reply arrives. An Embed can itself activate the registry,
/// whose NameOwnerChanged then arrives before the reply: that case is not a restart. An Embed the
/// registry refused is sent again, with growing delays (`Retry`), until it is taken.
public final class RegistryEmbedding {
    let connection: Connection
    let app: AccessibleApplication
    private let retry: Retry
    /// The registry's current owner as last announced by the bus; nil while it has none.
    private var registryOwner: String?
    /// The registry instance that answered our last Embed.
    private var embeddedWith: String?
    private var inFlight = false
    /// Runs when `isEmbedded` changes.
    public var onChange: (() -> Void)?

    /// The current registry holds our registration (its desktop lists the application).
    public var isEmbedded: Bool { embeddedWith != nil }

    public init(connection: Connection, app: AccessibleApplication, loop: EventLoop) {
        self.connection = connection
        self.app = app
        retry = Retry(loop: loop)
    }

    public func start() {
        connection.watchNameOwner(AtspiPaths.registryName) { [unowned self] owner in
            self.registryOwner = owner
            if self.embeddedWith != nil, owner != self.embeddedWith {
                self.embeddedWith = nil
                self.onChange?()
            }
            self.retry.reset()
            if let owner, !self.inFlight, owner != self.embeddedWith { self.embed() }
        }
        embed()
    }

    /// Without a timeout: a registry that is slow (stopped, busy starting) answers when it can,
    /// whereas an Embed given up on and sent again would be taken twice, listing the application
    /// twice. A registry that exits is answered for by the bus (an error), and its successor is
    /// embedded through the owner watch; a bus that dies drops the connection.
    private func embed() {
        inFlight = true
        do {
            try connection.callAsync(
                destination: AtspiPaths.registryName, path: AtspiPaths.root,
                interface: "org.a11y.atspi.Socket", member: "Embed",
                arguments: [app.rootRef.value], timeoutMilliseconds: Int32.max
            ) { [weak self] reply in
                self?.embedded(reply)
            }
        } catch {
            inFlight = false
            writeDiagnostic("could not register with the accessibility registry: \(error.message)")
        }
    }

    private func embedded(_ reply: Result<[DBusValue], MethodError>) {
        inFlight = false
        switch reply {
        case .success(let values):
            guard let desktop = values.first.flatMap(AccessibleRef.init) else {
                writeDiagnostic(
                    "the accessibility registry answered Embed with \(signature(of: values)), not (so)")
                return
            }
            app.desktop = desktop
            // The reply names the registry by its unique name; a well-known name tells us nothing.
            embeddedWith = desktop.name.hasPrefix(":") ? desktop.name : registryOwner
            if embeddedWith != nil { onChange?() }
        case .failure(let error):
            embeddedWith = nil
            // No registry now: its successor is embedded when it takes the name (the owner watch).
            guard registryOwner != nil else {
                writeDiagnostic(
                    "the accessibility registry refused Embed: \(error.message); waiting for it to restart"
                )
                return
            }
            writeDiagnostic("the accessibility registry refused Embed: \(error.message); asking again")
            retry.schedule { [weak self] in
                guard let self, !self.inFlight, self.registryOwner != nil, self.embeddedWith == nil
                else { return }
                self.embed()
            }
            return
        }
        retry.reset()
        // The registry restarted while our Embed was on its way: register with the new one.
        if let current = registryOwner, current != embeddedWith { embed() }
    }
}
