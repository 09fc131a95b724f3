import DBusKit
import SizeSelectorContract
import SnapCore
import SnapTexts
internal import CPOSIX
#if canImport(Glibc)
    import Glibc
#endif

/// `snapsizectl adjust`: move a preview with the keyboard in a terminal, one spoken line per change.
struct AdjustCommand: Command {
    static let name = "adjust"
    static let abstract = tr(
        "Adjust interactively: arrow keys preview, Enter commits, Esc cancels, q quits.")
    static let discussion =
        tr(
            """
            Left/Down preview the next smaller size, Right/Up the next larger, Home/End the ends. Enter commits
            the preview, Esc cancels it (adjusting goes on after both); q quits, cancelling an open preview.
            Every change is one line, so a screen reader reading the terminal speaks it:
              Preview: 80 points
              Committed: 80 points
              Cancelled: 60 points
            At an end, stderr says 'already at the largest size, 100 points'. The terminal is put back as it
            was on every way out; Ctrl-C cancels the preview and quits (exit 130). Without a terminal, keys
            are read from standard input as they come.
            """) + "\n"
        + tr(
            """
            adjust follows snapsized: when a reload (SIGHUP) or the preview timeout ends the preview, it says
            'Cancelled: 60 points' as for Esc; a new list is shown as 'New sizes: 10 50 90; committed: 50', and
            the keys then move through the new list on the new track.
            """)
    static let arguments: [ArgumentSpec] = [CommonArguments.timeout]

    let daemon: CallOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        daemon = try CallOptions(arguments)
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let client = try daemon.connect(context)
        let loop = EventLoop()
        weak var session: AdjustSession?
        // Followed from here on: a reload (SIGHUP) can change the list, the track, the layout and the words.
        client.attach(
            to: loop, onChange: { change in session?.follow(change) },
            onLost: {
                session?.lost()
                loop.stop()
            })
        // The match rule was sent before this call, and the bus answers in order: nothing is missed after it.
        let initial = try daemon.perform { () throws(MethodError) in try client.state() }
        guard initial.snapper != nil else {
            throw CommandFailure(
                .internalError, tr("snapsized reported a track that cannot be used: %s", "\(initial)"))
        }
        let running = AdjustSession(
            client: client, state: initial, console: context.console,
            timeoutSeconds: daemon.timeoutSeconds)
        session = running
        let terminal = RawTerminal(fd: context.inputFD)
        defer { terminal?.restore() }
        try running.run(loop: loop, inputFD: context.inputFD)
    }
}

/// The state of one `adjust` run: where the preview is, and what each key does.
final class AdjustSession {
    enum Outcome { case running, quit, interrupted, failed(CommandFailure) }

    let client: any SizeSelectorClient
    /// The daemon's state as this session knows it: read at the start, then kept up to date from
    /// every PropertiesChanged, so that positions are mapped with the daemon's current list and
    /// track and every line uses its current value texts.
    var state: SelectorState
    let console: Console
    let timeoutSeconds: Double
    /// The index this session previews, while it has a preview open.
    var previewIndex: Int?
    var outcome = Outcome.running

    init(client: any SizeSelectorClient, state: SelectorState, console: Console, timeoutSeconds: Double)
    {
        self.client = client
        self.state = state
        self.console = console
        self.timeoutSeconds = timeoutSeconds
    }

    func run(loop: EventLoop, inputFD: Int32) throws(CommandFailure) {
        var decoder = KeyDecoder()
        var escapeTimer: TimerID?
        let handleKeys = { [unowned self] (keys: [Key]) in
            // What the daemon announced before these keys (a reload, a timeout) is taken in first.
            self.client.receivePending()
            for key in keys where self.isRunning { self.handle(key) }
            if !self.isRunning { loop.stop() }
        }
        loop.watchFileDescriptor(inputFD) {
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = bytes.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if count < 0 && (cposix_errno() == EINTR || cposix_errno() == EAGAIN) { return }
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
        console.errorLine(
            tr(
                "%s: %s. Left/Right preview a size, Enter commits, Esc cancels, q quits.",
                state.label, state.valueText(index: state.selectedIndex)))
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
        case .left, .down: move(to: (previewIndex ?? state.selectedIndex) - 1)
        case .right, .up: move(to: (previewIndex ?? state.selectedIndex) + 1)
        case .home: move(to: 0)
        case .end: move(to: state.sizes.count - 1)
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

    /// One PropertiesChanged, in the order the daemon sent them. Our preview ending here ended
    /// elsewhere (a reload, the preview timeout): our own Enter and Esc forget it before they call.
    func follow(_ change: SelectorChange) {
        let sizes = state.sizes
        state.apply(change)
        if change.previewing == false, previewIndex != nil {
            previewIndex = nil
            console.line(tr("Cancelled: %s", state.valueText(index: state.selectedIndex)))
        }
        // Bare numbers: a new unit comes in an announcement of its own, after the list's.
        if state.sizes != sizes {
            console.line(
                tr(
                    "New sizes: %s; committed: %s", state.sizes.map(String.init).joined(separator: " "),
                    String(state.selectedSize)))
        }
    }

    /// The session bus went away: nothing more can be previewed or committed.
    func lost() {
        if isRunning { outcome = .failed(CommandFailure(.unavailable, tr("the session bus went away"))) }
    }

    private func move(to wanted: Int) {
        guard let snapper = state.snapper else { return }
        let target = snapper.sizes.clamp(wanted).index
        let from = previewIndex ?? state.selectedIndex
        if target != wanted && target == from {
            console.errorLine(
                Texts.limitNote(
                    largest: wanted > target, moved: false, valueText: state.valueText(index: target)))
            return
        }
        if target == previewIndex { return }
        guard let x = try? snapper.position(of: target),
            let reply = call({ () throws(MethodError) in try client.preview(x: x) })
        else { return }
        previewIndex = reply.index
        console.line(tr("Preview: %s", state.valueText(index: reply.index)))
    }

    private func commit() {
        guard let index = previewIndex, let x = try? state.snapper?.position(of: index) else { return }
        previewIndex = nil
        guard let reply = call({ () throws(MethodError) in try client.commit(x: x) }) else { return }
        console.line(tr("Committed: %s", state.valueText(index: reply.index)))
    }

    private func cancel() {
        guard previewIndex != nil else { return }
        previewIndex = nil
        guard call({ () throws(MethodError) in try client.cancel() }) != nil else { return }
        console.line(tr("Cancelled: %s", state.valueText(index: state.selectedIndex)))
    }

    /// A refusal (another client's preview) is reported and adjusting goes on; a lost daemon ends it.
    /// The announcements sent before the reply are taken in before the caller acts on it.
    private func call<T>(_ body: () throws(MethodError) -> T) -> T? {
        defer { client.receivePending() }
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
