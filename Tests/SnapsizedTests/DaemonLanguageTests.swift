import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import TestSupport

/// The daemon's words on the bus (`Label`, `ValueText`, `ValueTexts`, error messages) in the language
/// of its environment, chosen as gettext chooses; the machine parts (names, numbers) never change.
@Suite("The daemon speaks its session's language", .serialized)
struct LanguageTests {
    /// A snapsized (D-Bus only) under `language`, and its properties as a client reads them.
    final class Daemon {
        let bus: PrivateSessionBus
        let daemon: ChildProcess
        let client: Connection

        init(_ arguments: [String] = [], LANG: String?, LANGUAGE: String? = nil) throws {
            _ = try compileCatalogs()
            bus = try PrivateSessionBus()
            daemon = try startSnapsized(
                ["--no-accessibility", "--no-state"] + arguments,
                environment: withLanguage(bus.environment, LANG: LANG, LANGUAGE: LANGUAGE),
                busAddress: bus.address)
            client = try Connection(address: bus.address)
        }

        deinit {
            daemon.terminate()
            bus.stop()
        }

        func state() throws -> SelectorState {
            try SelectorState(
                getAll: client.call(
                    destination: SelectorBus.name.rawValue, path: SelectorBus.path,
                    interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                    arguments: [.string(SelectorBus.interface.rawValue)],
                    timeoutMilliseconds: 5000))
        }

        func call(_ member: String, _ arguments: [DBusValue]) throws(MethodError) -> [DBusValue] {
            try client.call(
                destination: SelectorBus.name.rawValue, path: SelectorBus.path,
                interface: SelectorBus.interface.rawValue, member: member, arguments: arguments,
                timeoutMilliseconds: 5000)
        }
    }

    static let english = (
        "Circle size", ["20 points", "40 points", "60 points", "80 points", "100 points"]
    )

    @Test(
        "LANG, LANGUAGE first, fallbacks to English",
        arguments: [
            (
                "pt_BR.UTF-8", nil, "Tamanho do círculo",
                ["20 pontos", "40 pontos", "60 pontos", "80 pontos", "100 pontos"]
            ),
            ("zh_CN.UTF-8", nil, "圆形尺寸", ["20 点", "40 点", "60 点", "80 点", "100 点"]),
            (
                "ar_EG.UTF-8", nil, "حجم الدائرة",
                ["20 نقطة", "40 نقطة", "60 نقطة", "80 نقطة", "100 نقطة"]
            ),
            ("ko_KR.UTF-8", nil, "원 크기", ["20포인트", "40포인트", "60포인트", "80포인트", "100포인트"]),
            // LANGUAGE is a list and wins over LANG: the first language with a catalog speaks.
            ("pt_BR.UTF-8", "ko", "원 크기", ["20포인트", "40포인트", "60포인트", "80포인트", "100포인트"]),
            (
                "fr_FR.UTF-8", "fr:pt_BR", "Tamanho do círculo",
                ["20 pontos", "40 pontos", "60 pontos", "80 pontos", "100 pontos"]
            ),
            // No catalog, the C locale, no locale at all, a locale that is not installed: English, no error.
            ("fr_FR.UTF-8", nil, english.0, english.1),
            ("C", nil, english.0, english.1),
            (nil, nil, english.0, english.1),
            ("pt_BR.ISO-8859-1", nil, english.0, english.1)
        ] as [(String?, String?, String, [String])])
    func language(_ LANG: String?, _ LANGUAGE: String?, _ label: String, _ valueTexts: [String]) throws {
        for locale in [LANG].compactMap({ $0 }) where locale.hasSuffix("UTF-8") {
            try #require(
                localeInstalled(locale),
                "\(locale) is not installed: `make test` makes it (make locales)")
        }
        let daemon = try Daemon(LANG: LANG, LANGUAGE: LANGUAGE)
        let state = try daemon.state()
        #expect(state.label == label)
        #expect(state.valueTexts == valueTexts)
        #expect(state.valueText == valueTexts[2])
        #expect(state.sizes == [20, 40, 60, 80, 100], "numbers are never translated")
        #expect(daemon.daemon.isRunning && daemon.daemon.stderr.isEmpty, "\(daemon.daemon.stderr)")
    }

    @Test(
        "plural forms: English two, Arabic six, Korean one; Western digits everywhere",
        arguments: [
            ("C.UTF-8", ["0 points", "1 point", "2 points", "3 points", "11 points", "100 points"]),
            ("pt_BR.UTF-8", ["0 ponto", "1 ponto", "2 pontos", "3 pontos", "11 pontos", "100 pontos"]),
            ("ar_EG.UTF-8", ["0 نقطة", "1 نقطة", "2 نقطتان", "3 نقاط", "11 نقطة", "100 نقطة"]),
            ("ko_KR.UTF-8", ["0포인트", "1포인트", "2포인트", "3포인트", "11포인트", "100포인트"]),
            ("zh_CN.UTF-8", ["0 点", "1 点", "2 点", "3 点", "11 点", "100 点"])
        ])
    func plurals(_ LANG: String, _ valueTexts: [String]) throws {
        let daemon = try Daemon(["--sizes", "0,1,2,3,11,100"], LANG: LANG)
        #expect(try daemon.state().valueTexts == valueTexts)
    }

    @Test(
        "a refusal keeps its error name and says why in the daemon's language; --label and --unit stay as given"
    )
    func refusalAndCustomWords() throws {
        let daemon = try Daemon(["--label", "Brush size", "--unit", "px"], LANG: "pt_BR.UTF-8")
        let state = try daemon.state()
        #expect(
            state.label == "Brush size"
                && state.valueTexts == ["20 px", "40 px", "60 px", "80 px", "100 px"])
        do {
            _ = try daemon.call("SetIndex", [.uint32(9)])
            Issue.record("SetIndex 9 was not refused")
        } catch {
            #expect(error.name == ErrorName.outOfRange)
            #expect(
                error.message == "O índice 9 está fora do intervalo: os índices válidos vão de 0 a 4.")
        }
    }

    @Test("who holds a preview is named in the daemon's language: the program and its process id")
    func previewHolder() throws {
        try #require(
            localeInstalled("ko_KR.UTF-8"),
            "ko_KR.UTF-8 is not installed: `make test` makes it (make locales)")
        let daemon = try Daemon(LANG: "ko_KR.UTF-8")
        _ = try daemon.call("Preview", [.double(250)])
        let other = try Connection(address: daemon.bus.address)
        do {
            _ = try other.call(
                destination: SelectorBus.name.rawValue, path: SelectorBus.path,
                interface: SelectorBus.interface.rawValue, member: "Increment", arguments: [],
                timeoutMilliseconds: 5000)
            Issue.record("Increment during another client's preview was accepted")
        } catch {
            #expect(error.name == ErrorName.previewActive)
            #expect(
                error.message.contains("\(ownCommand) (프로세스 \(getpid()))"), "message: \(error.message)")
        }
    }
}
