import Testing
import DBusKit
import SizeSelectorContract
import SnapCore
@testable import SnapService
import SnapSettings
import TestSupport

/// `Daemon.wire` and the facts' tables, in process: the order the daemon promises is the order of
/// the adapters' list, and every published property follows from some fact.
@Suite("The model's adapters in process")
struct WiringTests {
    @Test(
        "wire registers the accessible side, then the D-Bus object, then the preview guard; the accessibility bus is released first"
    )
    func order() throws {
        let bus = try PrivateSessionBus()
        let session = try Connection(address: bus.address)
        let loop = EventLoop(clock: .manual())
        loop.add(session)
        let model = SelectionModel(selection: try Selection(committed: 2), store: nil)
        let adapters = Daemon.wire(
            model: model, session: session, loop: loop, settings: DaemonSettings(),
            environment: ["AT_SPI_BUS_ADDRESS": "unix:path=/nonexistent"])
        let registered = model.adapters.map(ObjectIdentifier.init)
        let expected: [ObjectIdentifier] = [
            ObjectIdentifier(try #require(adapters.accessibility)),
            ObjectIdentifier(adapters.object), ObjectIdentifier(adapters.previewGuard)
        ]
        #expect(registered == expected)
        #expect(adapters.accessibility?.bus.releasesGroupFirst == true)
        #expect(loop.groupCommit != nil)

        var settings = DaemonSettings()
        settings.accessibility = false
        let without = Daemon.wire(
            model: model, session: session, loop: loop, settings: settings, environment: [:])
        #expect(
            model.adapters.map(ObjectIdentifier.init) == [
                ObjectIdentifier(without.object), ObjectIdentifier(without.previewGuard)
            ])
        loop.remove(session)
    }

    @Test(
        "every property but ChangedBy, ConfigProblems, LastChangeKind, StateFile and StateSaving is announced by some fact; ChangedBy and LastChangeKind follow the selection's and the history's"
    )
    func everyPropertyAnnounced() {
        let announced = Set(
            ModelFact.allCases.flatMap { SizeSelectorObject.announcement(of: $0).properties })
        // ConfigProblems is the config file's, not the model's: ConfigReport announces it; StateSaving
        // is the state file's (StateReport), and StateFile changes only at the next start.
        #expect(
            announced
                == Set(SelectorProperty.allCases).subtracting([
                    .changedBy, .configProblems, .lastChangeKind,
                    .stateFile, .stateSaving
                ]))
        #expect(
            ModelFact.allCases.filter { SizeSelectorObject.announcement(of: $0).recorded } == [
                .lastChange
            ])
        let authored = ModelFact.allCases.filter { SizeSelectorObject.announcement(of: $0).authored }
        #expect(authored == [.committedIndex, .committedSize, .shownIndex, .shownSize, .previewing])
        let committed = ModelFact.allCases.filter { SizeSelectorObject.announcement(of: $0).committed }
        #expect(committed == [.committedIndex, .committedSize])
    }

    @Test("each fact is one bit of ModelFacts, and a set iterates in the cases' order")
    func factBits() {
        #expect(ModelFact.allCases.count <= UInt32.bitWidth, "ModelFacts holds one bit per fact")
        #expect(ModelFact.allCases.map(\.rawValue) == Array(ModelFact.allCases.indices))
        #expect(Array(ModelFacts.all.cases) == ModelFact.allCases)
        let change = ModelChange([.previewing, .shownIndex], previewTouchedBy: PreviewOwner(":1.4"))
        #expect(Array(change.facts.cases) == [.shownIndex, .previewing, .previewTouched])
        #expect(ModelChange([.stoppedAtEnd]).isEmpty, "an event's fact comes only with the event")
    }
}
