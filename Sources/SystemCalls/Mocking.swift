import Synchronization

/// The calls `POSIX` makes, by name, for `MockedCalls`.
public enum SystemCall: String, Sendable, CaseIterable {
    case open, read, write, pwrite, fsync, fdatasync, fchmod, close, rename, link, unlink, mkdir, stat,
        fstat, access
}

#if ENABLE_MOCKING
    /// What a test wants from the POSIX calls made inside `withMockedCalls` (on that task only, so
    /// tests running in parallel are not disturbed): failures with a chosen errno, short writes, and
    /// a trace of the calls made. Built only in debug builds (`ENABLE_MOCKING`, as in swift-system).
    public final class MockedCalls: Sendable {
        private struct State {
            var failures: [SystemCall: [(skip: Int, code: Int32, times: Int)]] = [:]
            var writeLimit: Int?
            var trace: [SystemCall] = []
        }
        private let state = Mutex(State())

        public init() {}

        /// Makes `call` fail with `code` (`errno`) `times` times, after letting `after` such calls through.
        public func fail(_ call: SystemCall, with code: Int32, after: Int = 0, times: Int = Int.max) {
            state.withLock { $0.failures[call, default: []].append((after, code, times)) }
        }

        /// Makes every write write at most `bytes` bytes (a short write, as on a pipe or a full disk).
        public func limitWrites(to bytes: Int) {
            state.withLock { $0.writeLimit = bytes }
        }

        /// The calls made so far, in order (failed ones included).
        public var trace: [SystemCall] { state.withLock { $0.trace } }

        var writeLimit: Int? { state.withLock { $0.writeLimit } }

        /// Records `call`; returns the errno it must fail with, or nil.
        func failure(for call: SystemCall) -> Int32? {
            state.withLock { state in
                state.trace.append(call)
                guard var rules = state.failures[call],
                    let index = rules.indices.first(where: { rules[$0].times > 0 })
                else {
                    return nil
                }
                defer { state.failures[call] = rules }
                if rules[index].skip > 0 {
                    rules[index].skip -= 1
                    return nil
                }
                rules[index].times -= 1
                return rules[index].code
            }
        }

        @TaskLocal static var current: MockedCalls?
    }

    /// Runs `body` with the POSIX calls it makes (on this task) going through `mock`.
    public func withMockedCalls<Result>(_ mock: MockedCalls, _ body: () throws -> Result) rethrows
        -> Result
    {
        try MockedCalls.$current.withValue(mock) { try body() }
    }
#endif
