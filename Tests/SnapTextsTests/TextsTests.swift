import Testing
import SnapCore
import SnapTexts

/// The English words (the msgids), in-process. The translations are tested through the real
/// daemon, slider and CLI in LocalizationTests.
@Suite("The words, in English")
struct TextsTests {
    @Test(
        "printable: C0, DEL, C1, bidi overrides and isolates, format characters and line separators replaced; other text kept"
    )
    func printable() {
        for code: UInt32 in [
            0x00, 0x07, 0x09, 0x0A, 0x1B, 0x7F, 0x80, 0x85, 0x9B, 0x9C, 0x9D, 0x9F, 0xAD, 0x200B, 0x200E,
            0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF, 0xE0001
        ] {
            let scalar = Unicode.Scalar(code)!
            #expect(Texts.printable("a\(scalar)b") == "a?b", "U+\(String(code, radix: 16))")
        }
        for kept in ["snapsizectl adjust", "pontos ç", "点 尺寸", "نقطة", "포인트", "👍🏽", "tab-free", "¡é…€"] {
            #expect(Texts.printable(kept) == kept)
        }
        #expect(Texts.printable("one\ntwo\u{9B}", keepingLineBreaks: true) == "one\ntwo?")
        #expect(Texts.printable("one\ntwo") == "one?two")
    }

    @Test("label, value text with plural forms, description; --label and --unit exactly as given")
    func words() throws {
        let words = Texts()
        #expect(words.label == "Circle size")
        #expect(words.valueText(size: 60) == "60 points")
        #expect(words.valueText(size: 1) == "1 point")
        #expect(words.valueText(size: -1) == "-1 point")
        #expect(words.description(of: .standard) == "One of 20, 40, 60, 80 or 100 points")
        #expect(words.description(of: try SizeSet([1])) == "One of 1 point")
        #expect(words.valueTexts(try SizeSet([1, 2, 3])) == ["1 point", "2 points", "3 points"])
        let custom = Texts(label: "Brush", unit: "px")
        #expect(custom.label == "Brush" && custom.valueText(size: 1) == "1 px")
        #expect(custom.description(of: try SizeSet([1, 2])) == "One of 1 or 2 px")
    }

    @Test("lists: choices end in 'or', plain lists in commas; placeholders of usage lines")
    func lists() {
        #expect(Texts.choices([]) == "" && Texts.choices(["20"]) == "20")
        #expect(Texts.choices(["20", "40"]) == "20 or 40")
        #expect(Texts.choices(["20", "40", "60", "80", "100"]) == "20, 40, 60, 80 or 100")
        #expect(
            Texts.enumeration(["'a'", "'b'", "'c'"]) == "'a', 'b', 'c'" && Texts.enumeration([]) == "")
        #expect(
            Texts.placeholder("seconds") == "seconds"
                && Texts.placeholder("ordinal|numeric") == "ordinal|numeric")
    }

    @Test("a text found in a text, at its start, middle or end; not across a character's bytes")
    func containsText() {
        #expect(Texts.contains("/home/me/.build/debug", "/.build/"))
        #expect(Texts.contains("org.gnome.desktop.wm.keybindings", "keybindings"))
        #expect(Texts.contains("GNOME", "GN") && Texts.contains("ubuntu:GNOME", "GNOME"))
        #expect(Texts.contains("anything", "") && Texts.contains("", ""))
        #expect(!Texts.contains("", "a") && !Texts.contains("gnom", "gnome"))
        #expect(!Texts.contains("KDE", "kde"), "by bytes: case matters")
        #expect(Texts.contains("größe", "öß") && !Texts.contains("größe", "os"))
    }

    @Test("actions and limit notes")
    func actionsAndNotes() {
        #expect(Texts.largerAction.name == "Larger" && Texts.smallerAction.name == "Smaller")
        #expect(
            Texts.limitNote(largest: true, moved: false, valueText: "100 points")
                == "already at the largest size, 100 points")
        #expect(
            Texts.limitNote(largest: false, moved: true, valueText: "20 points")
                == "stopped at the smallest size, 20 points")
    }

    @Test("every refusal explains itself in a sentence")
    func refusals() {
        let owner = PreviewOwner(":1.10")
        let errors: [SnapError] = [
            .emptySizes, .unsortedSizes(position: 1), .invalidTrack(width: 1, inset: 1),
            .nonFinite(what: .pointerPosition),
            .nonFinite(what: .indexValue), .nonFinite(what: .size), .indexOutOfRange(index: 9, count: 5),
            .previewActive(owner: owner)
        ]
        for error in errors { #expect(Texts.refusal(error).hasSuffix("."), "\(error)") }
        #expect(Set(errors.map(Texts.refusal)).count == errors.count)
        #expect(Texts.refusal(.previewActive(owner: owner)).contains(":1.10"))
        #expect(
            Texts.refusal(.indexOutOfRange(index: 9, count: 5))
                == "Index 9 is out of range: valid indexes are 0 to 4.")
    }
}
