import Foundation
import Synchronization
import DBusKit
import TestSupport

/// A stand-in for the accessibility side on a private bus, speaking the AT-SPI calls `doctor` makes:
/// a registry (org.a11y.atspi.Registry) whose desktop root lists one application, and that
/// application ("snapsize" unless told otherwise) with one child of the given role, name and value.
/// Served by an EventLoop on its own thread; every connection is created and used there.
final class FakeAccessibility: Sendable {
    struct Slider: Sendable {
        var applicationName = "snapsize"
        var listed = true
        var role: UInt32 = 51
        var name = "Circle size"
        var value = 2.0
    }

    let bus: PrivateSessionBus
    private final class Shared: Sendable {
        let handle = Mutex<LoopHandle?>(nil)
        let finished = Atomic<Bool>(false)
        let failure = Mutex<String?>(nil)
    }
    private let shared = Shared()

    static let root = ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!
    static let framePath = ObjectPath(rawValue: "/org/a11y/atspi/accessible/frame")!
    static let sliderPath = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!

    init(_ slider: Slider, serviceDirectory: String) throws {
        bus = try PrivateSessionBus(serviceDirectories: [serviceDirectory])
        let address = bus.address
        let shared = self.shared
        let thread = Thread {
            let loop = EventLoop()
            do {
                let registry = try Connection(address: address)
                let application = try Connection(address: address)
                let appName = application.uniqueName
                func accessible(name: String, role: UInt32, children: [(String, ObjectPath)])
                    -> InterfaceTable
                {
                    InterfaceTable(
                        "org.a11y.atspi.Accessible",
                        methods: [
                            Method("GetChildren", outputs: [Argument("children", "a(so)")]) {
                                _ throws(MethodError) in
                                [
                                    .array(
                                        elementSignature: "(so)",
                                        children.map { .structure([.string($0.0), .objectPath($0.1)]) })
                                ]
                            },
                            Method("GetRole", outputs: [Argument("role", "u")]) {
                                _ throws(MethodError) in [.uint32(role)]
                            }
                        ], properties: [Property("Name", signature: "s") { .string(name) }])
                }
                try registry.export(
                    path: Self.root,
                    interfaces: [
                        accessible(
                            name: "main", role: 14, children: slider.listed ? [(appName, Self.root)] : []
                        )
                    ])
                try application.export(
                    path: Self.root,
                    interfaces: [
                        accessible(
                            name: slider.applicationName, role: 75, children: [(appName, Self.framePath)]
                        )
                    ])
                try application.export(
                    path: Self.framePath,
                    interfaces: [
                        accessible(name: "", role: 23, children: [(appName, Self.sliderPath)])
                    ])
                try application.export(
                    path: Self.sliderPath,
                    interfaces: [
                        accessible(name: slider.name, role: slider.role, children: []),
                        InterfaceTable(
                            "org.a11y.atspi.Value",
                            properties: [
                                Property("CurrentValue", signature: "d") { .double(slider.value) }
                            ])
                    ])
                guard try registry.requestName(BusName(rawValue: "org.a11y.atspi.Registry")!) else {
                    throw TestFailure("org.a11y.atspi.Registry is taken")
                }
                loop.add(registry)
                loop.add(application)
                shared.handle.withLock { $0 = loop.handle }
                loop.run()
                withExtendedLifetime((registry, application)) {}
            } catch {
                shared.failure.withLock { $0 = String(describing: error) }
            }
            shared.finished.store(true, ordering: .sequentiallyConsistent)
        }
        thread.start()
        var problem: String?
        let ready = waitUntil(timeout: 10) {
            problem = shared.failure.withLock { $0 }
            return shared.handle.withLock { $0 } != nil || problem != nil
        }
        guard ready, problem == nil else {
            throw TestFailure("fake accessibility did not start: \(problem ?? "timeout")")
        }
    }

    deinit {
        shared.handle.withLock { $0 }?.stop()
        waitUntil(timeout: 10) { shared.finished.load(ordering: .sequentiallyConsistent) }
        bus.stop()
    }
}
