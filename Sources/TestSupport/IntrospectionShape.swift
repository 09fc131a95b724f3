import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The members of one interface in an introspection document, as comparable lines such as
/// `method Increment out index u` or `property Sizes ai read`, in document order.
/// Annotations for Qt's code generator (`org.qtproject.QtDBus.*`) are left out: they are in the
/// XML for qdbusxml2cpp and are not served by the daemon (nothing on the bus depends on them).
public func interfaceShape(_ xml: String, interface: String) -> [String] {
    let reader = ShapeReader(interface: interface)
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = reader
    parser.shouldResolveExternalEntities = false
    guard parser.parse() else {
        return ["unparseable: \(parser.parserError.map(String.init(describing:)) ?? "?")"]
    }
    return reader.lines
}

private final class ShapeReader: NSObject, XMLParserDelegate {
    let interface: String
    var lines: [String] = []
    private var inside = false
    private var member = ""

    init(interface: String) { self.interface = interface }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        switch name {
        case "interface":
            inside = attributes["name"] == interface
        case "method" where inside, "signal" where inside:
            member = "\(name) \(attributes["name"] ?? "?")"
            lines.append(member)
        case "arg" where inside:
            let direction = attributes["direction"] ?? (member.hasPrefix("signal") ? "out" : "in")
            lines.append(
                "\(member) \(direction) \(attributes["name"] ?? "") \(attributes["type"] ?? "?")")
        case "property" where inside:
            member = "property \(attributes["name"] ?? "?")"
            lines.append("\(member) \(attributes["type"] ?? "?") \(attributes["access"] ?? "?")")
        case "annotation" where inside && !(attributes["name"] ?? "").hasPrefix("org.qtproject.QtDBus."):
            lines.append(
                "\(member) annotation \(attributes["name"] ?? "") = \(attributes["value"] ?? "")")
        default:
            break
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
    ) {
        if name == "interface" { inside = false }
    }
}
