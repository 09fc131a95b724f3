import Glibc
import SizeSelectorContract
import TestSupport
import SystemCalls

/// The programs a key binding could start to step the size, each a whole process from exec to exit:
/// `snapsizectl inc` against the two a person would otherwise bind, `dbus-send --print-reply` (libdbus,
/// C) and `gdbus call` (GDBus), all making the same call to snapsized on its private bus.
enum KeyPressClient: String, CaseIterable {
    case snapsizectl
    case dbusSend = "dbus-send"
    case gdbusCall = "gdbus call"
    /// Another build of snapsizectl (`--baseline-ctl PATH`), run in the same blocks.
    case baseline = "baseline"

    /// The ratio columns, in table order: snapsizectl divided by each.
    static let ratioColumns: [KeyPressClient] = [.dbusSend, .gdbusCall, .baseline]
}

/// One process: from just before posix_spawn to wait4's return, and the CPU it used (user + system,
/// from wait4's rusage), in seconds.
struct KeyPressSample {
    let wall: Double
    let cpu: Double
}

/// Starts each client's process with a prepared argv and environment (built once, not timed), its
/// standard descriptors on /dev/null, a clean signal mask, and waits for it with wait4.
final class KeyPressRunner {
    private let commands: [KeyPressClient: (increment: Command, decrement: Command)]
    /// Is the next process a step up? Every process steps the other way from the one before, whichever
    /// client ran it, so the daemon commits each step and the selection stays beside the middle size a
    /// fresh daemon starts at, never at a limit (where `snapsizectl` would ask for more to say so).
    private var goesUp = true

    /// An argv and envp as C strings, kept for the life of the runner.
    final class Command {
        let executable: String
        private let argv: [UnsafeMutablePointer<CChar>?]
        private let envp: [UnsafeMutablePointer<CChar>?]

        init(_ executable: String, _ arguments: [String], environment: [String: String]) {
            self.executable = executable
            argv = ([executable] + arguments).map { strdup($0) } + [nil]
            envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }

        deinit {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }

        func run() throws(BenchError) -> KeyPressSample {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for fd: Int32 in [0, 1, 2] {
                posix_spawn_file_actions_addopen(
                    &actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            }
            var attributes = cleanSignalAttributes()
            defer { posix_spawnattr_destroy(&attributes) }

            var pid: pid_t = 0
            let started = monotonicNow()
            let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            guard rc == 0 else {
                throw BenchError("cannot start \(executable): \(String(cString: strerror(rc)))")
            }
            var status: Int32 = 0
            var usage = rusage()
            var waited: pid_t
            repeat { waited = wait4(pid, &status, 0, &usage) } while waited < 0 && errno == EINTR
            let ended = monotonicNow()
            guard waited == pid, status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
                throw BenchError("\(executable) failed (wait status \(status))")
            }
            func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
            return KeyPressSample(
                wall: ended - started, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime))
        }
    }

    /// `snapsizectl` is the build under test; dbus-send and gdbus are found on PATH.
    init(snapsizectl: String, baseline: String?, environment: [String: String]) throws(BenchError) {
        func onPath(_ name: String, package: String) throws(BenchError) -> String {
            for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                let path = "\(folder)/\(name)"
                if access(path, X_OK) == 0 { return path }
            }
            throw BenchError("\(name) is not on PATH; it comes with Debian's \(package)")
        }
        let member = (increment: "Increment", decrement: "Decrement")
        let destination = SelectorBus.name.rawValue, path = Contract.path, interface = Contract.interface
        let dbusSend = try onPath("dbus-send", package: "dbus-bin")
        let gdbus = try onPath("gdbus", package: "libglib2.0-bin")
        func pair(_ make: (String) -> Command) -> (Command, Command) {
            (make(member.increment), make(member.decrement))
        }
        var commands: [KeyPressClient: (increment: Command, decrement: Command)] = [
            .snapsizectl: (
                Command(snapsizectl, ["inc"], environment: environment),
                Command(snapsizectl, ["dec"], environment: environment)
            ),
            .dbusSend: pair {
                Command(
                    dbusSend,
                    [
                        "--session", "--print-reply", "--dest=\(destination)", path,
                        "\(interface).\($0)"
                    ], environment: environment)
            },
            .gdbusCall: pair {
                Command(
                    gdbus,
                    [
                        "call", "--session", "--dest", destination, "--object-path", path,
                        "--method", "\(interface).\($0)"
                    ], environment: environment)
            }
        ]
        if let baseline {
            commands[.baseline] = (
                Command(baseline, ["inc"], environment: environment),
                Command(baseline, ["dec"], environment: environment)
            )
        }
        self.commands = commands
    }

    var clients: [KeyPressClient] { KeyPressClient.allCases.filter { commands[$0] != nil } }

    /// `blocks` blocks in which every client runs `perBlock` processes, the first client rotating.
    func run(blocks: Int, perBlock: Int) throws(BenchError) -> [KeyPressClient: [KeyPressSample]] {
        var samples: [KeyPressClient: [KeyPressSample]] = [:]
        let all = clients
        for block in 0..<blocks {
            let shift = block % all.count
            for client in all[shift...] + all[..<shift] {
                for _ in 0..<perBlock {
                    let command = goesUp ? commands[client]!.increment : commands[client]!.decrement
                    goesUp.toggle()
                    samples[client, default: []].append(try command.run())
                }
            }
        }
        return samples
    }
}
