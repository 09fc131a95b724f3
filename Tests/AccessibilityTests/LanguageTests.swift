import Foundation
import Testing
import DBusKit
import TestSupport

/// The slider in the daemon's language, as pyatspi reads it, agreeing with the D-Bus side.
@Suite("The accessible slider speaks the session's language", .serialized)
struct SliderLanguageTests {
    @Test(
        "name, description, valuetext, Value.Text and action names; D-Bus Label and ValueText agree",
        arguments: [
            (
                "pt_BR.UTF-8", "Tamanho do círculo", "Um de 20, 40, 60, 80 ou 100 pontos", "60 pontos",
                ["Maior", "Menor"]
            ),
            ("zh_CN.UTF-8", "圆形尺寸", "20、40、60、80 或 100 点中的一个", "60 点", ["更大", "更小"]),
            (
                "ar_EG.UTF-8", "حجم الدائرة", "واحد من 20 أو 40 أو 60 أو 80 أو 100 نقطة", "60 نقطة",
                ["أكبر", "أصغر"]
            ),
            ("ko_KR.UTF-8", "원 크기", "20, 40, 60, 80, 100포인트 중 하나", "60포인트", ["크게", "작게"])
        ])
    func language(
        _ locale: String, _ name: String, _ description: String, _ valueText: String, _ actions: [String]
    ) throws {
        try #require(
            localeInstalled(locale), "\(locale) is not installed: `make test` makes it (make locales)")
        _ = try compileCatalogs()
        let fixture = try SliderFixture(daemonLanguage: locale)
        let slider = try fixture.python("inspect_slider.py").object("slider")
        let read = slider.object("value"), attributes = slider["attributes"] as? [String: String] ?? [:]
        let actionList = slider["actions"] as? [[String: String]] ?? []
        print(
            "\(locale) as pyatspi reads it: name '\(slider.string("name") ?? "")', value text '\(read.string("text") ?? "")', "
                + "description '\(slider.string("description") ?? "")', actions \(actionList.map { $0["localizedName"] ?? "" })"
        )
        #expect(slider.string("name") == name)
        #expect(slider.string("description") == description)
        #expect(attributes["valuetext"] == valueText)
        #expect(read.string("text") == valueText)
        #expect(actionList.map { $0["localizedName"] } == actions)
        #expect(
            actionList.map { $0["name"] } == ["increment", "decrement"], "action names are not words")
        #expect(
            actionList.allSatisfy {
                !($0["description"] ?? "").isEmpty && !($0["description"] ?? "").hasPrefix("Selects")
            })
        #expect(attributes["size"] == "60", "numbers stay digits")
        #expect(try fixture.client.selectorProperty("Label") == .string(name))
        #expect(try fixture.client.selectorProperty("ValueText") == .string(valueText))
    }
}
