import TestSupport

extension DaemonFixture {
    /// Runs the built snapsizectl against this bus.
    func ctl(_ arguments: [String], environment overrides: [String: String?] = [:]) throws -> Result {
        guard let snapsizectl = productPath("snapsizectl") else {
            throw TestFailure("snapsizectl is not built; run `swift build` first")
        }
        var environment = self.environment
        for (key, value) in overrides { environment[key] = value }
        let result = try run(snapsizectl, arguments, environment: environment, timeout: 20)
        return Result(status: result.status, out: result.stdout, err: result.stderr)
    }

    struct Result {
        let status: Int32
        let out: String
        let err: String
    }
}

/// Track positions of the default sizes 20, 40, 60, 80, 100 (width 336, inset 12, ordinal).
let tick: [Double] = [12, 90, 168, 246, 324]
