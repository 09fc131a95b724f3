import Testing
@testable import SnapCLI

/// The words `keys` reads from GSettings and from `--key`: accelerators in every spelling, GVariant text.
@Suite("keys: accelerators and GVariant text")
struct KeysParsingTests {
    @Test(
        "one key whatever the spelling: GTK's, the person's, KDE's; aliases folded; nothing for disabled or malformed"
    )
    func accelerators() {
        let screenReader = Accelerator(modifiers: [.superKey, .alt], key: "s")
        #expect(Accelerator("<Alt><Super>s") == screenReader)
        #expect(Accelerator("<Super><Alt>S") == screenReader)
        #expect(Accelerator("Super+Alt+S") == screenReader)
        #expect(Accelerator("<Mod4><Mod1>s") == screenReader)
        #expect(Accelerator("<Primary><Shift>Prior") == Accelerator("Ctrl+Shift+PgUp"))
        #expect(
            Accelerator("<Super>Page_Down") == Accelerator("Meta+PgDown"), "KDE's Meta is the Super key")
        #expect(Accelerator("<Meta>x")?.modifiers == [.meta])
        #expect(Accelerator("Ctrl++")?.key == "plus")
        for nothing in ["", "disabled", "<Super>", "<Super", "<Bogus>a", "Super+", "a b"] {
            #expect(Accelerator(nothing) == nil, "\(nothing)")
        }
        let pageUp = Accelerator(modifiers: [.alt, .superKey], key: "Prior")
        #expect(pageUp.gtk == "<Super><Alt>Page_Up" && pageUp.spoken == "Super+Alt+Page Up")
        #expect(pageUp.kde == "Meta+Alt+PgUp" && pageUp.xkb == "Mod4+Mod1+Page_Up")
        #expect(screenReader.spoken == "Super+Alt+S" && screenReader.xkb == "Mod4+Mod1+s")
    }

    @Test(
        "gsettings' values: a string, an array, an empty typed array, escapes; anything else is not strings"
    )
    func gvariant() {
        #expect(GVariantText.strings("'<Super>l'") == ["<Super>l"])
        #expect(GVariantText.strings("['<Super>Up', '<Alt>F5']") == ["<Super>Up", "<Alt>F5"])
        #expect(GVariantText.strings("@as []") == [])
        #expect(GVariantText.strings("[\"it's\", 'a\\\\b']") == ["it's", "a\\b"])
        for other in ["true", "6", "uint32 0", "[1, 2]", "'open", "('a', 'b')"] {
            #expect(GVariantText.strings(other) == nil, "\(other)")
        }
        let tricky = "gedit 'my notes.txt' \\ done"
        #expect(GVariantText.strings(GVariantText.quoted(tricky)) == [tricky])
        #expect(GVariantText.array([]) == "@as []")
        #expect(GVariantText.strings(GVariantText.array(["/a/", "b'c"])) == ["/a/", "b'c"])
    }

    @Test("a command line as one word for the desktop: plain paths as they are, others quoted for sh")
    func shellWords() {
        #expect(KeyPrograms.shellWord("/usr/bin/snapsizectl") == "/usr/bin/snapsizectl")
        #expect(KeyPrograms.shellWord("/home/a b/bin/snapsizectl") == "'/home/a b/bin/snapsizectl'")
        #expect(KeyPrograms.shellWord("/tmp/it's") == "'/tmp/it'\\''s'")
    }
}
