import DBusKit
import SizeSelectorContract
import SnapCore
import SnapTexts
#if canImport(Glibc)
import Glibc
#endif

/// `snapsizectl adjust`: move a preview with the keyboard in a terminal, one spoken line per change.
struct AdjustCommand: Command {
    static let name = "adjust"
    static let abstract = tr("Adjust interactively: arrow keys preview, Enter commits, Esc cancels, q quits.")
    static let discussion = tr("""
        Left/Down preview the next smaller size, Right/Up the next larger, Home/End the ends. Enter commits
        the preview, Esc cancels it (adjusting goes on after both); q quits, cancelling an open preview.
        Every change is one line, so a screen reader reading the terminal speaks it:
          Preview: 80 points
          Committed: 80 points
          Cancelled: 60 points
        At an end, stderr says 'already at the largest size, 100 points'. The terminal is put back as it
        was on every way out; Ctrl-C cancels the preview and quits (exit 130). Without a terminal, keys
        are read from standard input as they come.
        """)
    static let arguments: [ArgumentSpec] = [CommonArguments.timeout]

    let daemon: DaemonOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        daemon = try DaemonOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let initial = try daemon.perform { () throws(MethodError) in try client.state() }
        guard let snapper = initial.snapper else {
            throw CommandFailure(.internalError, tr("snapsized reported a track that cannot be used: %s", "\(initial)"))
        }
        let session = AdjustSession(client: client, snapper: snapper, state: initial, console: context.console,
                                    timeoutSeconds: daemon.timeoutSeconds)
        let terminal = RawTerminal(fd: context.inputFD)
        defer { terminal?.restore() }
        try session.run(inputFD: context.inputFD)
    }
}

/// The state of one `adjust` run: where the preview is, and what each key does.
final class AdjustSession {
    enum Outcome { case running, quit, interrupted, failed(CommandFailure) }

    let client: any SizeSelectorClient
    let snapper: Snapper
    /// The state read at the start: the daemon's value text of each size.
    let initial: SelectorState
    let label: String
    let console: Console
    let timeoutSeconds: Double
    var committedIndex: Int
    /// The index this session previews, while it has a preview open.
    var previewIndex: Int?
    var outcome = Outcome.running

    init(client: any SizeSelectorClient, snapper: Snapper, state: SelectorState, console: Console, timeoutSeconds: Double) {
        self.client = client
        self.snapper = snapper
        self.initial = state
        self.label = state.label
        self.console = console
        self.timeoutSeconds = timeoutSeconds
        self.committedIndex = state.selectedIndex
    }

    func run(inputFD: Int32) throws(CommandFailure) {
        let loop = EventLoop()
        var decoder = KeyDecoder()
        var escapeTimer: TimerID?
        let handleKeys = { [unowned self] (keys: [Key]) in
            for key in keys where self.isRunning { self.handle(key) }
            if !self.isRunning { loop.stop() }
        }
        loop.watchFileDescriptor(inputFD) {
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = bytes.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { return }
            guard count > 0 else {
                handleKeys([.endOfInput])
                loop.stop()
                return
            }
            if let escapeTimer { loop.cancel(escapeTimer) }
            escapeTimer = nil
            handleKeys(decoder.feed(Array(bytes[..<count])))
            if decoder.hasPendingEscape {
                escapeTimer = loop.schedule(after: 0.05) {
                    escapeTimer = nil
                    if let key = decoder.flushPendingEscape() { handleKeys([key]) }
                }
            }
        }
        for signo in [SIGINT, SIGTERM, SIGHUP] {
            loop.onSignal(signo) { [unowned self] in
                self.handle(.interrupt)
                loop.stop()
            }
        }
        console.errorLine(tr("%s: %s. Left/Right preview a size, Enter commits, Esc cancels, q quits.",
                             label, initial.valueText(index: committedIndex)))
        loop.run()
        switch outcome {
        case .running, .quit: return
        case .interrupted: throw CommandFailure(.interrupted, "")
        case .failed(let failure): throw failure
        }
    }

    var isRunning: Bool { if case .running = outcome { return true } else { return false } }

    func handle(_ key: Key) {
        switch key {
        case .left, .down: move(to: (previewIndex ?? currentCommitted()) - 1)
        case .right, .up: move(to: (previewIndex ?? currentCommitted()) + 1)
        case .home: move(to: 0)
        case .end: move(to: snapper.sizes.lastIndex)
        case .enter: commit()
        case .escape: cancel()
        case .quit, .endOfInput:
            cancel()
            if isRunning { outcome = .quit }
        case .interrupt:
            cancel()
            if isRunning { outcome = .interrupted }
        case .other: break
        }
    }

    /// The committed index as the daemon has it now (someone else may have changed it), when no preview is ours.
    private func currentCommitted() -> Int {
        if let state = call({ () throws(MethodError) in try client.state() }) { committedIndex = state.selectedIndex }
        return committedIndex
    }

    private func move(to wanted: Int) {
        let target = snapper.sizes.clamp(wanted).index
        let from = previewIndex ?? committedIndex
        if target != wanted && target == from {
            console.errorLine(Texts.limitNote(largest: wanted > target, moved: false, valueText: initial.valueText(index: target)))
            return
        }
        if target == previewIndex { return }
        guard let x = try? snapper.position(of: target),
              let reply = call({ () throws(MethodError) in try client.preview(x: x) }) else { return }
        previewIndex = reply.index
        console.line(tr("Preview: %s", initial.valueText(index: reply.index)))
    }

    private func commit() {
        guard let index = previewIndex, let x = try? snapper.position(of: index) else { return }
        guard let reply = call({ () throws(MethodError) in try client.commit(x: x) }) else { return }
        previewIndex = nil
        committedIndex = reply.index
        console.line(tr("Committed: %s", initial.valueText(index: reply.index)))
    }

    private func cancel() {
        guard previewIndex != nil else { return }
        guard call({ () throws(MethodError) in try client.cancel() }) != nil else { return }
        previewIndex = nil
        let state = call({ () throws(MethodError) in try client.state() })
        if let state { committedIndex = state.selectedIndex }
        console.line(tr("Cancelled: %s", initial.valueText(index: committedIndex)))
    }

    /// A refusal (another client's preview) is reported and adjusting goes on; a lost daemon ends it.
    private func call<T>(_ body: () throws(MethodError) -> T) -> T? {
        do {
            return try body()
        } catch {
            let failure = CommandFailure(error, timeoutSeconds: timeoutSeconds)
            if failure.code == .refused {
                console.errorLine("\(Tool.name): \(failure.message)")
            } else {
                outcome = .failed(failure)
            }
            return nil
        }
    }
}
