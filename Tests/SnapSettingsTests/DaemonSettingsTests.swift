import Testing
import SnapCore
@testable import SnapSettings
import SnapTexts

@Suite("snapsized options and config file")
struct DaemonSettingsTests {
    func settings(_ words: [String], config: String = "", state: String? = "/tmp/state") throws
        -> DaemonSettings
    {
        guard case .run(let flags) = try DaemonArguments.parse(words) else {
            Issue.record("expected options to run with")
            return DaemonSettings()
        }
        let values = try DaemonArguments.parseConfig(config, path: "config")
        return try DaemonArguments.settings(flags: flags, config: values, defaultStateFile: state)
    }

    @Test("defaults")
    func defaults() throws {
        let value = try settings([])
        #expect(value.snapper == Snapper())
        #expect(value.texts == Texts())
        #expect(value.initialIndex == 2)
        #expect(value.previewTimeout == 30)
        #expect(value.stateFile == "/tmp/state")
        #expect(value.accessibility && value.announce == .changes)
    }

    @Test("every flag, in both spellings")
    func flags() throws {
        let value = try settings([
            "--sizes", "10,20,30", "--initial=24", "--label", "Brush", "--unit", "px", "--layout",
            "numeric",
            "--track-width", "200", "--track-inset=10", "--preview-timeout", "0.5", "--state-file",
            "/x/s",
            "--no-accessibility", "--announce", "never"
        ])
        #expect(value.snapper.sizes.sizes == [10, 20, 30])
        #expect(value.initialIndex == 1)
        #expect(value.texts == Texts(label: "Brush", unit: "px"))
        #expect(value.snapper.layout == .numeric)
        #expect(value.snapper.track.width == 200 && value.snapper.track.inset == 10)
        #expect(value.previewTimeout == 0.5)
        #expect(value.stateFile == "/x/s")
        #expect(!value.accessibility && value.announce == .never)
        #expect(try settings(["--no-state"]).stateFile == nil)
    }

    @Test("config values apply and flags win over them")
    func config() throws {
        let text = """
            # a comment
            sizes = 1, 2, 3   # trailing comment
            label = Pen
            no-accessibility = true

            """
        let value = try settings(["--label", "Brush"], config: text)
        #expect(value.snapper.sizes.sizes == [1, 2, 3])
        #expect(value.texts.label == "Brush")
        #expect(!value.accessibility)
        #expect(try settings([], config: "no-state = false").stateFile == "/tmp/state")
    }

    @Test(
        "invalid values are refused with a clear sentence",
        arguments: [
            (["--sizes", ""], "--sizes: '' is not a whole number"),
            (["--sizes", "60,20"], "strictly increase"),
            (["--sizes", "20,40,9999999999"], "too large"),
            (["--track-width", "20"], "larger than twice the inset"),
            (["--track-width", "wide"], "'wide' is not a finite number"),
            (["--layout", "radial"], "'radial' is not a layout"),
            (["--initial", "sixty"], "'sixty' is not a whole number"),
            (["--preview-timeout", "0"], "above 0"),
            (["--preview-timeout", "nan"], "not a finite number"),
            (
                ["--announce", "sometimes"],
                "'sometimes' is not one of changes, announcement, notification, never"
            ),
            (["--bogus"], "unknown option '--bogus'"),
            (["--sizes"], "--sizes needs a value"),
            (["--no-state=yes"], "--no-state takes no value"),
            (["stray"], "unexpected argument 'stray'")
        ])
    func refused(words: [String], message: String) {
        do {
            _ = try settings(words)
            Issue.record("\(words) was accepted")
        } catch let error as InvalidValue {
            #expect(error.message.contains(message), "got: \(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(
        "config errors name the file and line",
        arguments: [
            ("sizes 20,40", "config:1: expected 'key = value'"),
            ("\ncolour = red", "config:2: unknown key 'colour'"),
            ("no-state = perhaps", "config:1: no-state must be true or false"),
            ("config = /elsewhere", "config:1: unknown key 'config'"),
            ("lable = Brush size", "config:1: unknown key 'lable' (did you mean 'label'?)"),
            ("track-width = wide", "--track-width: 'wide' is not a finite number"),
            ("label =", "--label: the label must not be empty")
        ])
    func configErrors(text: String, message: String) {
        let error = #expect(throws: InvalidValue.self) {
            try DaemonArguments.parseConfig(text, path: "config")
        }
        #expect(error?.message.hasPrefix(message) == true, "got: \(String(describing: error))")
    }

    @Test("help and version")
    func help() throws {
        #expect(try DaemonArguments.parse(["--help"]) == .help)
        #expect(try DaemonArguments.parse(["--sizes", "1", "--version"]) == .version)
        let help = DaemonArguments.helpText()
        for option in DaemonOption.all {
            #expect(help.contains("--" + option.name), "help lacks --\(option.name)")
        }
    }
}
