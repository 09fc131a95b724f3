import DBusKit

/// What was asked for before the accessible side was ready (a text to say, a `Focus`): only the
/// latest is kept, for `bound` seconds on the loop's clock (a manual one in tests). Taken when the
/// side is ready; past the bound it is dropped, with one line (`onDropped`).
final class UntilReady<Value> {
    let loop: EventLoop
    let bound: Double
    /// The line logged for a dropped value ("not spoken: \"80 points\"").
    private let describe: (Value) -> String
    var onDropped: ((String) -> Void)?
    private var kept: (value: Value, expiry: TimerID)?

    init(loop: EventLoop, bound: Double, describe: @escaping (Value) -> String) {
        self.loop = loop
        self.bound = bound
        self.describe = describe
    }

    var isEmpty: Bool { kept == nil }

    /// Keeps `value` instead of anything kept before; the bound starts again.
    func keep(_ value: Value) {
        forget()
        let expiry = loop.schedule(after: bound) { [unowned self] in
            guard let kept = self.kept else { return }
            self.kept = nil
            self.onDropped?(
                "the accessibility bus was not ready within \(self.bound) s; \(self.describe(kept.value))"
            )
        }
        kept = (value, expiry)
    }

    /// The kept value, now no longer kept; nil when there is none (or it was dropped).
    func take() -> Value? {
        defer { forget() }
        return kept?.value
    }

    func forget() {
        if let kept { loop.cancel(kept.expiry) }
        kept = nil
    }
}
