import Testing
@testable import SnapCLI

@Suite("snapsizectl snap (offline)")
struct SnapCommandTests {
    @Test(
        "prints index and size",
        arguments: [
            (["--x", "51"], "1 40\n"), (["--x=-10"], "0 20\n"), (["--x", "-10"], "0 20\n"),
            (["--x", "350"], "4 100\n"),
            (["--x", "168"], "2 60\n"),
            (["--x", "31.5", "--sizes", "20,30,60,100", "--layout", "numeric"], "1 30\n"),
            (["--x", "31.5", "--sizes", "20, 30, 60, 100"], "0 20\n"),
            (["--x", "5", "--width", "10", "--inset", "0", "--sizes", "1,2"], "1 2\n")
        ])
    func plain(arguments: [String], expected: String) {
        let result = runTool(["snap"] + arguments)
        #expect(result.status == 0)
        #expect(result.out == expected)
        #expect(result.err == "")
    }

    @Test("--json prints one object with stable keys")
    func json() {
        let result = runTool(["snap", "--x", "51", "--json"])
        #expect(result.status == 0)
        #expect(result.out == #"{"x":51,"index":1,"size":40,"layout":"ordinal"}"# + "\n")
    }

    @Test(
        "bad input: a clear message on stderr, nothing on stdout, exit 64",
        arguments: [
            (["--x", "nan"], "--x: 'nan' is not a finite number"),
            (["--x", "inf"], "--x: 'inf' is not a finite number"),
            (["--x", "abc"], "--x: 'abc' is not a finite number"),
            ([], "missing --x <x>"),
            (["--x"], "--x needs a value"),
            (["--x", "1", "--sizes", "60,20"], "--sizes: The sizes must strictly increase"),
            (["--x", "1", "--sizes", ""], "'' is not a whole number"),
            (["--x", "1", "--sizes", "20,forty"], "'forty' is not a whole number"),
            (["--x", "1", "--width", "24"], "must be finite and larger than twice the inset"),
            (["--x", "1", "--layout", "spiral"], "'spiral' is not a layout; use ordinal or numeric"),
            (["--x", "1", "--bogus"], "unknown option '--bogus'"),
            (["--x", "1", "extra"], "unexpected argument 'extra'")
        ])
    func refused(arguments: [String], message: String) {
        let result = runTool(["snap"] + arguments)
        #expect(result.status == 64)
        #expect(result.out == "")
        #expect(result.err.contains(message), "stderr was: \(result.err)")
        #expect(result.err.contains("USAGE: snapsizectl snap --x <x>"))
    }

    @Test("help is generated from the same table the parser uses")
    func help() {
        let result = runTool(["snap", "--help"])
        #expect(result.status == 0)
        let expectedStart = """
            USAGE: snapsizectl snap --x <x> [--sizes <list>] [--width <points>] [--inset <points>] [--layout <ordinal|numeric>] [--json]

            Map a pointer x on the track to an index and size, without a daemon.
            """
        #expect(result.out.hasPrefix(expectedStart))
        for spec in SnapCommand.arguments {
            #expect(result.out.contains(spec.synopsis), "help lacks \(spec.synopsis)")
        }
        #expect(runTool(["help", "snap"]).out == result.out)
    }

    @Test("tool-level help, version and unknown commands")
    func tool() {
        let help = runTool(["--help"])
        #expect(help.status == 0 && help.out.contains("snap ") && help.out.contains("EXIT STATUS"))
        #expect(runTool(["--version"]).out == "snapsizectl \(Tool.version)\n")
        let unknown = runTool(["frobnicate"])
        #expect(unknown.status == 64 && unknown.err.contains("unknown command 'frobnicate'"))
        #expect(runTool([]).status == 64)
    }
}
