/// What is wrong with the config file, for the person: published as the `ConfigProblems` property
/// (`snapsizectl status` and `doctor` show it), because the daemon's stderr is /dev/null under D-Bus
/// activation and the journal under systemd. Set at start and by every reload; `onChange` runs
/// (PropertiesChanged) only when the problems differ from the ones before.
public final class ConfigReport {
    public private(set) var problems: [String]
    var onChange: (() -> Void)?

    public init(_ problems: [String] = []) {
        self.problems = problems
    }

    func set(_ problems: [String]) {
        guard problems != self.problems else { return }
        self.problems = problems
        onChange?()
    }
}
