import CGtk
import DBusKit
import GtkShim
import SizeSelectorContract
import Testing
@testable import SnapPanel

/// GDBus's values read as the contract's: a GetAll as snapsized answers it (in GVariant's text form)
/// decodes with SizeSelectorContract's own decoder; a reply tuple becomes a body. No display, no bus.
@Suite("Panel: GVariant to DBusValue")
struct GVariantValueTests {
    static func parse(_ text: String) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let variant = g_variant_parse(nil, text, nil, nil, &error) else {
            defer { g_error_free(error) }
            throw MethodError(.failed, String(cString: error!.pointee.message))
        }
        return g_variant_ref_sink(variant)
    }

    @Test("a GetAll reply decodes into the contract's SelectorState, every property with its type")
    func getAll() throws {
        let text = """
            ({'Sizes': <[20, 40, 60, 80, 100]>, 'SelectedIndex': <uint32 2>, 'SelectedSize': <60>, 'ShownIndex': <uint32 4>, \
            'ShownSize': <100>, 'Previewing': <true>, 'ValueText': <'100 points'>, \
            'ValueTexts': <['20 points', '40 points', '60 points', '80 points', '100 points']>, 'Label': <'Circle size'>, \
            'TrackWidth': <336.0>, 'TrackInset': <12.0>, 'Layout': <'ordinal'>, 'ChangedBy': <(':1.7', uint32 4242, 'snapsizectl drag')>, \
            'ConfigProblems': <@as []>, 'CanUndo': <false>, 'CanRedo': <false>, 'LastChangeKind': <''>, 'StateFile': <''>, \
            'StateSaving': <'off'>},)
            """
        let variant = try Self.parse(text)
        defer { g_variant_unref(variant) }
        let state = try SelectorState(getAll: GVariantValue.body(variant))
        #expect(
            state.sizes == [20, 40, 60, 80, 100] && state.selectedIndex == 2 && state.shownIndex == 4
                && state.previewing)
        #expect(state.trackWidth == 336 && state.trackInset == 12 && state.layout == "ordinal")
        #expect(
            state.changedBy == ClientIdentity(uniqueName: ":1.7", pid: 4242, command: "snapsizectl drag")
        )
        #expect(state.valueTexts[4] == "100 points" && state.configProblems.isEmpty)
    }

    @Test("the panel's own call arguments and a (ui) reply")
    func tuples() throws {
        let x = g_variant_ref_sink(shim_tuple_d(249.99998474121094))!
        defer { g_variant_unref(x) }
        #expect(GVariantValue.body(x) == [.double(249.99998474121094)])
        let reply = try Self.parse("(uint32 1, 40)")
        defer { g_variant_unref(reply) }
        #expect(
            try SelectorReply(selected: GVariantValue.body(reply), from: "Commit")
                == SelectorReply(index: 1, size: 40))
    }
}
