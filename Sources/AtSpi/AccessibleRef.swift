import DBusKit

/// Fixed names and paths of the AT-SPI2 protocol.
public enum AtspiPaths {
    /// Every application's root object must live here (libatspi special-cases this path).
    public static let root = ObjectPath(rawValue: "/org/a11y/atspi/accessible/root")!
    public static let frame = ObjectPath(rawValue: "/org/a11y/atspi/accessible/frame")!
    public static let slider = ObjectPath(rawValue: "/org/a11y/atspi/accessible/slider")!
    public static let statusBar = ObjectPath(rawValue: "/org/a11y/atspi/accessible/status")!
    public static let notification = ObjectPath(
        rawValue: "/org/a11y/atspi/accessible/status/notification")!
    public static let notificationLabel = ObjectPath(
        rawValue: "/org/a11y/atspi/accessible/status/notification/label")!
    public static let cache = ObjectPath(rawValue: "/org/a11y/atspi/cache")!
    public static let null = ObjectPath(rawValue: "/org/a11y/atspi/null")!
    public static let registryName = "org.a11y.atspi.Registry"
}

/// An AT-SPI object reference `(so)`: always the connection's UNIQUE name, never a well-known one,
/// because libatspi keys applications by the sender of events.
public struct AccessibleRef: Hashable, Sendable {
    public var name: String
    public var path: ObjectPath

    public init(name: String, path: ObjectPath) {
        self.name = name
        self.path = path
    }

    public static let null = AccessibleRef(name: "", path: AtspiPaths.null)
    public var value: DBusValue { .structure([.string(name), .objectPath(path)]) }

    init?(_ value: DBusValue) {
        guard let members = value.asStructure, members.count == 2, let name = members[0].asString,
            let path = members[1].asObjectPath
        else { return nil }
        self.init(name: name, path: path)
    }
}
