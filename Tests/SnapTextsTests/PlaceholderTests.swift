import Testing
@testable import SnapTexts

/// The placeholder filler that replaces printf (digits must stay Western in every language).
@Suite("Placeholders")
struct PlaceholderTests {
    @Test("%s and %d in order, %N$s by position, %% a percent sign, unknown ones kept")
    func filling() {
        #expect(fillPlaceholders("%d points", [60]) == "60 points")
        #expect(fillPlaceholders("%s: '%s' is not", ["--x", "abc"]) == "--x: 'abc' is not")
        #expect(fillPlaceholders("%2$s then %1$s", ["a", "b"]) == "b then a")
        #expect(fillPlaceholders("100%% of %s", ["it"]) == "100% of it")
        #expect(fillPlaceholders("%x %s", ["a"]) == "%x a")
        #expect(fillPlaceholders("%s and %s", ["a"]) == "a and %s")
        #expect(fillPlaceholders("tail %", []) == "tail %")
        #expect(fillPlaceholders("no placeholders", ["a"]) == "no placeholders")
    }
}
