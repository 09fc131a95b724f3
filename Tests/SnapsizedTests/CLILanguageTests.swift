import Testing
import TestSupport

/// snapsizectl in Portuguese: its messages and help follow LANG, its data never does.
@Suite("snapsizectl speaks the session's language")
struct CLILanguageTests {
    static let portuguese: [String: String?] = [
        "LANG": "pt_BR.UTF-8", "LANGUAGE": nil, "LC_ALL": nil, "LC_MESSAGES": nil
    ]
    static let english: [String: String?] = [
        "LANG": "C.UTF-8", "LANGUAGE": nil, "LC_ALL": nil, "LC_MESSAGES": nil
    ]

    @Test(
        "usage errors, help and the limit note in Portuguese; get and --json byte-identical to English")
    func portuguese() throws {
        try #require(
            localeInstalled("pt_BR.UTF-8"),
            "pt_BR.UTF-8 is not installed: `make test` makes it (make locales)")
        _ = try compileCatalogs()
        // The daemon of a Portuguese session speaks Portuguese too (its value texts are in the note).
        let fixture = try DaemonFixture(startDaemon: false)
        fixture.environment = withLanguage(fixture.environment, LANG: "pt_BR.UTF-8")
        try fixture.start()

        let usage = try fixture.ctl(["set", "forty"], environment: Self.portuguese)
        #expect(usage.status == 64)
        #expect(
            usage.err == "snapsizectl set: 'forty' não é um número inteiro de pontos\n"
                + "USO: snapsizectl set [<tamanho>] [--index <n>] [--json] [--timeout <segundos>]\n",
            "\(usage.err)")
        let help = try fixture.ctl(["--help"], environment: Self.portuguese)
        #expect(help.out.hasPrefix("USO: snapsizectl <comando> [opções]\n"), "\(help.out)")
        #expect(help.out.contains("Imprimir o tamanho confirmado."))

        let top = try fixture.ctl(["inc", "5"], environment: Self.portuguese)
        #expect(top.status == 0 && top.out == "100\n")
        #expect(top.err == "parou no maior tamanho, 100 pontos\n", "\(top.err)")
        let again = try fixture.ctl(["inc"], environment: Self.portuguese)
        #expect(again.err == "já está no maior tamanho, 100 pontos\n", "\(again.err)")

        // Data: the same bytes whatever the CLI's language (each call leaves the selection as it found it).
        for arguments in [
            ["get"], ["get", "--json"], ["status", "--json"], ["inc", "--json"], ["set", "60"],
            ["set", "--index", "2", "--json"], ["snap", "--x", "51", "--json"],
            ["drag", "30", "200", "--release", "125"],
            ["drag", "300", "--cancel", "--json"]
        ] {
            let inPortuguese = try fixture.ctl(arguments, environment: Self.portuguese)
            let inEnglish = try fixture.ctl(arguments, environment: Self.english)
            #expect(
                inPortuguese.status == 0 && inPortuguese.out == inEnglish.out,
                "\(arguments): \(inPortuguese.out) vs \(inEnglish.out)")
            #expect(!inPortuguese.out.isEmpty)
        }
        // No English left where a person reads: the reason there is no session bus, and the doctor's
        // step, check and role words.
        var noBus = Self.portuguese
        noBus["DBUS_SESSION_BUS_ADDRESS"] = .some(nil)
        noBus["XDG_RUNTIME_DIR"] = "/nonexistent"
        let get = try fixture.ctl(["get"], environment: noBus)
        #expect(get.status == 69)
        #expect(
            get.err
                == "snapsizectl: não foi possível alcançar o barramento de sessão (org.freedesktop.DBus.Error.BadAddress: "
                + "DBUS_SESSION_BUS_ADDRESS não está definida, e não há soquete de barramento de sessão em /nonexistent/bus)\n",
            "\(get.err)")
        let doctor = try fixture.ctl(
            ["doctor"],
            environment: Self.portuguese.merging(["AT_SPI_BUS_ADDRESS": nil] as [String: String?]) { $1 }
        )
        #expect(doctor.out.hasPrefix("[ok]   barramento de sessão disponível: unix:"), "\(doctor.out)")
        #expect(
            doctor.err == "snapsizectl: doctor: a etapa 'barramento de acessibilidade' falhou\n",
            "\(doctor.err)")
        let english = try fixture.ctl(["set", "forty"], environment: Self.english)
        #expect(
            english.err.hasPrefix("snapsizectl set: 'forty' is not a whole number of points\n"),
            "\(english.err)")
    }
}
