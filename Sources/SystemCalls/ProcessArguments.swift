internal import CArguments

/// The arguments the process was started with, without the program's name, read from the argv the C
/// runtime passed in (CArguments), not through CommandLine.arguments, which on Linux needs /proc.
public func processArguments() -> [String] {
    let count = Int(snapsize_argc())
    guard count > 1, let vector = snapsize_argv() else { return [] }
    return (1..<count).map { vector[$0].map { String(cString: $0) } ?? "" }
}

/// The program's name (argv[0] without its folder), from the same argv; "snapsize" when there is none.
func processName() -> String {
    guard Int(snapsize_argc()) > 0, let vector = snapsize_argv(), let first = vector[0] else {
        return "snapsize"
    }
    return String(String(cString: first).split(separator: "/").last ?? "snapsize")
}
