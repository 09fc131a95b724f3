/// When snapsized speaks a change to a screen reader: the one home of these timings. The daemon's
/// `Speaker` takes its window from here; the tests, the benchmark (`make bench`'s call -> speech)
/// and the docs name them rather than copy a number. Here, not in the daemon's module, so that the
/// benchmark can read them without linking the daemon.
public enum SpeechTiming {
    /// At most one utterance per window while changes keep coming; the first after a quiet window
    /// goes out at once. The `Speaker`'s default; it must be at least `minimumGap`, or the trailing
    /// utterance of a burst comes too soon after the one before it (SpeakerTests checks).
    public static let window = 0.25
    /// Between two utterances at least this much: Orca 48 drops an announcement that comes too soon
    /// after the one before it, and times them as it takes them from its queue, so there is jitter to
    /// allow for (the measured gaps are in Benchmarks/PERFORMANCE-LOG.md).
    public static let minimumGap = 0.2
    /// What an observer adds to `window` so that the daemon's loop has ended the window it timed.
    public static let margin = 0.05
    /// A pause after which the next change is spoken at once (the leading edge), and after which a
    /// text held for the window's end would have been said: `window + margin`.
    public static let quiet = window + margin
}
