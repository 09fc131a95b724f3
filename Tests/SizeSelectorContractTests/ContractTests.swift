import Foundation
import Testing
import DBusKit
@_spi(Testing) import SizeSelectorContract
import TestSupport

/// SizeSelectorContract against the checked-in XML, and its encoders against its decoders; no bus needed.
@Suite("SizeSelector1 contract")
struct ContractTests {
    static let xml =
        (try? String(
            contentsOfFile: repositoryRoot + "/dbus/org.snapsize.SizeSelector1.xml", encoding: .utf8))
        ?? ""

    @Test("the contract's methods, signals and properties are the XML's, member by member")
    func shapeMatchesXML() {
        let sample = SelectorState.sample
        let table = InterfaceTable(
            SelectorBus.interface.rawValue,
            methods: SelectorMethod.allCases.map { Method($0) { _ throws(MethodError) in [] } },
            properties: SelectorProperty.allCases.map { property in
                Property(property) { property.encode(sample) }
            },
            signals: SelectorSignal.allCases.map { SignalSpec($0) })
        let truth = interfaceShape(Self.xml, interface: SelectorBus.interface.rawValue)
        #expect(truth.count > 40, "the checked-in XML lost its members: \(truth)")
        #expect(
            interfaceShape(
                InterfaceTable.introspectionDocument(tables: [table]),
                interface: SelectorBus.interface.rawValue) == truth)
        #expect(
            Self.xml.contains(
                "Bus name \(SelectorBus.name.rawValue), object \(SelectorBus.path.rawValue)."))
        for property in SelectorProperty.allCases {
            #expect(property.encode(sample).signature == property.signature, "\(property)")
        }
        // Every property announced when it changes (a reload's list, track and layout too): the XML
        // carries no EmitsChangedSignal annotation, and the table above would introspect one for
        // any other `SelectorProperty.emitsChange`, failing the comparison.
        #expect(!truth.contains { $0.contains("EmitsChangedSignal") }, "\(truth)")
    }

    @Test(
        "the D-Bus activation file is named after the contract's bus name and starts snapsized for that name"
    )
    func activationFile() throws {
        let file = try String(
            contentsOfFile: repositoryRoot + "/dbus/" + SelectorBus.activationFile, encoding: .utf8)
        let lines = file.split(separator: "\n").map(String.init)
        #expect(
            lines.contains("[D-BUS Service]") && lines.contains("Name=" + SelectorBus.name.rawValue),
            "\(file)")
        #expect(lines.contains { $0.hasPrefix("Exec=") && $0.hasSuffix("snapsized") }, "\(file)")
    }

    @Test("the error names are the ones the XML documents")
    func errorNames() throws {
        let regex = try NSRegularExpression(pattern: #"org\.snapsize\.SizeSelector1\.Error\.[A-Za-z]+"#)
        let range = NSRange(Self.xml.startIndex..., in: Self.xml)
        let documented = Set(
            regex.matches(in: Self.xml, range: range).compactMap {
                Range($0.range, in: Self.xml).map { String(Self.xml[$0]) }
            })
        #expect(
            documented == [
                ErrorName.previewActive.rawValue, ErrorName.outOfRange.rawValue,
                ErrorName.noAccessibility.rawValue,
                ErrorName.accessibilityNotAnswering.rawValue, ErrorName.nothingToUndo.rawValue,
                ErrorName.nothingToRedo.rawValue
            ])
        #expect(
            !documented.contains(ErrorName.unexpectedReply.rawValue),
            "UnexpectedReply is the client's own, never sent")
    }

    @Test("every property decodes what it encodes, and refuses another type")
    func propertyRoundTrip() throws {
        let sample = SelectorState.sample
        let entries = SelectorProperty.allCases.map {
            DBusValue.dictEntry(.string($0.name), .variant($0.encode(sample)))
        }
        #expect(try SelectorState(getAll: [.array(elementSignature: "{sv}", entries)]) == sample)
        var state = SelectorState.empty
        for property in SelectorProperty.allCases {
            let wrong: DBusValue = property.signature == "s" ? .int32(1) : .string("1")
            #expect(!property.decode(wrong, into: &state), "\(property) took \(wrong)")
        }
        #expect(state == .empty)
        let missing = Array(entries.dropLast())
        #expect(throws: MethodError.self) {
            try SelectorState(getAll: [.array(elementSignature: "{sv}", missing)])
        }
        let change = SelectorChange(changed: [
            "ShownIndex": .uint32(3), "ShownSize": .int32(80), "ValueText": .string("80 points"),
            "Previewing": .int32(1), "Colour": .string("red")
        ])
        #expect(change == SelectorChange(shownIndex: 3, shownSize: 80, valueText: "80 points"))
    }

    @Test(
        "a client's state applies every property a PropertiesChanged announces (a reload's list, track, layout, words too)"
    )
    func applyEveryProperty() {
        let reloaded = SelectorState(
            sizes: [10, 30, 50, 70], selectedIndex: 1, selectedSize: 30, shownIndex: 1, shownSize: 30,
            previewing: false, valueText: "30 px", valueTexts: ["10 px", "30 px", "50 px", "70 px"],
            label: "Brush", trackWidth: 200, trackInset: 4, layout: "numeric",
            changedBy: ClientIdentity(uniqueName: ":1.7", pid: 42, command: "snapsizectl set"),
            configProblems: ["/c:1: unknown key 'x'; the file was not used"],
            canUndo: true, canRedo: true, lastChangeKind: "undo", stateFile: "/s/state",
            stateSaving: "failing: /s is not a folder")
        // Every property differs from the sample, so none can pass by being left alone.
        for property in SelectorProperty.allCases {
            #expect(property.encode(reloaded) != property.encode(SelectorState.sample), "\(property)")
        }
        var followed = SelectorState.sample
        followed.apply(
            SelectorChange(
                changed: Dictionary(
                    uniqueKeysWithValues: SelectorProperty.allCases.map {
                        ($0.name, $0.encode(reloaded))
                    })))
        #expect(followed == reloaded)
        // One property at a time: only that one changes.
        for property in SelectorProperty.allCases {
            var one = SelectorState.sample
            one.apply(SelectorChange(changed: [property.name: property.encode(reloaded)]))
            for other in SelectorProperty.allCases {
                let expected = other == property ? reloaded : SelectorState.sample
                #expect(
                    other.encode(one) == other.encode(expected), "\(property) announced, \(other) read")
            }
        }
        // The typed views read the announced values.
        let change = SelectorChange(
            sizes: [10, 30], label: "Brush", trackWidth: 200, trackInset: 4, layout: "numeric")
        #expect(
            change.sizes == [10, 30] && change.trackWidth == 200 && change.trackInset == 4
                && change.layout == "numeric")
        #expect(change.label == "Brush" && change.valueTexts == nil && change.selectedIndex == nil)
        #expect(change.announces(.sizes) && !change.announces(.previewing))
    }

    @Test("replies: (ui) and (uib) both ways; another shape is UnexpectedReply")
    func replyShapes() throws {
        let step = SelectorReply(index: 4, size: 100, atLimit: true)
        #expect(signature(of: step.stepBody) == "uib")
        #expect(signature(of: step.selectedBody) == "ui")
        #expect(try SelectorReply(step: step.stepBody, from: "Increment") == step)
        #expect(
            try SelectorReply(selected: step.selectedBody, from: "SetIndex")
                == SelectorReply(index: 4, size: 100))
        #expect(SelectorMethod.increment.outputs.map(\.signature).joined() == "uib")
        #expect(SelectorMethod.preview.outputs.map(\.signature).joined() == "ui")
        #expect(SelectorSignal.committed.arguments.map(\.signature).joined() == "ui")
        do {
            _ = try SelectorReply(selected: step.stepBody, from: "SetIndex")
            Issue.record("a (uib) body was read as (ui)")
        } catch {
            #expect(error.name == .unexpectedReply)
        }
    }
}

extension SelectorState {
    static let sample = SelectorState(
        sizes: [20, 40, 60, 80, 100], selectedIndex: 2, selectedSize: 60, shownIndex: 3,
        shownSize: 80, previewing: true, valueText: "80 points",
        valueTexts: ["20 points", "40 points", "60 points", "80 points", "100 points"],
        label: "Text size",
        trackWidth: 336, trackInset: 12, layout: "ordinal")
}
