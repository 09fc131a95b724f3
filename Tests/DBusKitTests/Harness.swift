import Foundation
import Synchronization
import Testing
import DBusKit
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// Thread-safe list of things observed on a loop thread, read by the test.
final class Recorder<T: Sendable>: Sendable {
    private let storage = Mutex<[T]>([])
    func append(_ item: T) { storage.withLock { $0.append(item) } }
    var items: [T] { storage.withLock { $0 } }
}

/// An `EventLoop` running on its own `Thread`. Everything non-Sendable (connections, tables) is
/// created inside `setup`, on that thread, which then owns it.
final class LoopThread: Sendable {
    private enum State: Sendable { case starting, ready(LoopHandle), failed(String) }
    private final class Shared: Sendable {
        let state = Mutex<State>(.starting)
        let finished = Atomic<Bool>(false)
    }
    private let shared = Shared()

    init(_ setup: @escaping @Sendable (EventLoop) throws -> Void) throws {
        let shared = self.shared
        let thread = Thread {
            let loop = EventLoop()
            do {
                try setup(loop)
            } catch {
                shared.state.withLock { $0 = .failed(String(describing: error)) }
                shared.finished.store(true, ordering: .sequentiallyConsistent)
                return
            }
            shared.state.withLock { $0 = .ready(loop.handle) }
            loop.run()
            shared.finished.store(true, ordering: .sequentiallyConsistent)
        }
        thread.start()
        var result: State = .starting
        waitUntil(timeout: 10) {
            result = shared.state.withLock { $0 }
            if case .starting = result { return false }
            return true
        }
        switch result {
        case .ready: return
        case .failed(let text): throw TestFailure("loop setup failed: \(text)")
        case .starting: throw TestFailure("loop thread did not start within 10 s")
        }
    }

    var handle: LoopHandle {
        guard case .ready(let handle) = shared.state.withLock({ $0 }) else {
            preconditionFailure("loop not ready")
        }
        return handle
    }

    /// Runs `body` on the loop thread and waits for its result.
    func sync<T: Sendable>(_ body: @escaping @Sendable (EventLoop) -> T) throws -> T {
        let result = Mutex<T?>(nil)
        handle.execute { loop in
            let value = body(loop)
            result.withLock { $0 = value }
        }
        var value: T?
        guard
            waitUntil(
                timeout: 10,
                {
                    value = result.withLock { $0 }; return value != nil
                }), let value
        else {
            throw TestFailure("loop thread did not run the job")
        }
        return value
    }

    func stop() {
        handle.stop()
        waitUntil(timeout: 10) { shared.finished.load(ordering: .sequentiallyConsistent) }
    }

    deinit { stop() }
}

/// The test service: `org.example.Test1` at `/org/example/Test`, owned on the loop thread.
enum TestService {
    static let busName = BusName(rawValue: "org.example.Test")!
    static let path = ObjectPath(rawValue: "/org/example/Test")!
    static let childPath = ObjectPath(rawValue: "/org/example/Test/child")!
    static let treePath = ObjectPath(rawValue: "/org/example/Tree")!
    static let interface = InterfaceName(rawValue: "org.example.Test1")!
    static let nopeError = ErrorName(rawValue: "org.example.Test1.Error.Nope")!

    /// State shared by the handlers; only touched on the loop thread.
    final class State {
        var count: UInt32 = 0
        var label = "initial"
    }

    static func table(state: State, connection: Connection) -> InterfaceTable {
        InterfaceTable(
            interface.rawValue,
            methods: [
                Method("Increment", outputs: [Argument("value", "u")]) { _ throws(MethodError) in
                    state.count += 1
                    return [.uint32(state.count)]
                },
                Method("Echo", inputs: [Argument("text", "s")], outputs: [Argument("text", "s")]) {
                    call throws(MethodError) in
                    [.string(try call.string(0))]
                },
                Method(
                    "Add", inputs: [Argument("a", "i"), Argument("b", "i")],
                    outputs: [Argument("sum", "i")]
                ) {
                    call throws(MethodError) in
                    [.int32(try call.int32(0) &+ call.int32(1))]
                },
                Method("Fail") { _ throws(MethodError) in throw MethodError(nopeError, "nope") },
                Method("BadReply", outputs: [Argument("value", "u")]) { _ throws(MethodError) in
                    [.string("oops")]
                }
            ],
            properties: [
                Property("Count", signature: "u", get: { .uint32(state.count) }),
                Property(
                    "Label", signature: "s", access: .readWrite, get: { .string(state.label) },
                    set: {
                        [unowned connection] value, _ throws(MethodError) in
                        guard let text = value.asString, !text.isEmpty else {
                            throw MethodError(.invalidArgs, "empty label")
                        }
                        state.label = text
                        try connection.emitPropertiesChanged(
                            path: path, interface: interface, changed: [("Label", value)])
                    }),
                Property("Version", signature: "s", emitsChange: .const, get: { .string("1.0") })
            ],
            signals: [
                SignalSpec("Tick", arguments: [Argument("count", "u")])
            ])
    }

    /// Connects to `address`, exports everything and takes the bus name; call inside `LoopThread`.
    @discardableResult
    static func start(on loop: EventLoop, address: String) throws -> Connection {
        let connection = try Connection(address: address)
        let state = State()
        try connection.export(path: path, interfaces: [table(state: state, connection: connection)])
        try connection.export(path: childPath, interfaces: [])
        try connection.exportSubtree(path: treePath) { path in
            guard path.rawValue.hasPrefix(treePath.rawValue + "/node") else { return nil }
            return [
                InterfaceTable(
                    "org.example.Node1",
                    properties: [
                        Property("Path", signature: "o", get: { .objectPath(path) })
                    ])
            ]
        }
        guard try connection.requestName(busName) else { throw TestFailure("name already taken") }
        loop.add(connection)
        return connection
    }
}

/// Starts a private bus, or fails the test with a message (never a silent pass).
func startBus() throws -> PrivateSessionBus {
    do {
        return try PrivateSessionBus()
    } catch {
        Issue.record("cannot start a private dbus-daemon: \(error)")
        throw error
    }
}

/// The error a throwing call produced, or nil.
func methodError(_ body: () throws(MethodError) -> Void) -> MethodError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
