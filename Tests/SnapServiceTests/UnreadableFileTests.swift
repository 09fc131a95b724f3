import Foundation
import Testing
import SnapSettings
@testable import SnapService
import SystemCalls
import TestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// A state or config file that cannot be read (EACCES), made so through the SystemCalls seam:
/// `chmod 0` does not stop root, and the content here is valid, so only the refused read can
/// make the file unusable.
@Suite("Unreadable state and config files, in process")
struct UnreadableFileTests {
    @Test("a reason is the system's English words in every language, as the log and StateSaving say it")
    func englishReason() throws {
        // This thread in Portuguese, as a daemon started with LANG=pt_BR.UTF-8: plain strerror then
        // says "Permissão negada" (or "Permiss?o negada" with LC_MESSAGES alone set).
        guard let portuguese = newlocale(1 << LC_CTYPE | 1 << LC_MESSAGES, "pt_BR.UTF-8", nil) else {
            Issue.record("the pt_BR.UTF-8 locale is not installed (make locales installs it)")
            return
        }
        defer { freelocale(portuguese) }
        let previous = uselocale(portuguese)
        let reason = describeErrno(EACCES)
        let translated = String(cString: strerror(EACCES))
        uselocale(previous)
        #expect(
            translated != "Permission denied",
            "strerror is not translated here, so this test could not fail")
        #expect(reason == "Permission denied")
    }

    @Test("an unreadable state file is reported and kept aside; the next start begins afresh")
    func state() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state"
        #expect(StateStore(path: path).save(size: 60) == nil)
        let mock = MockedCalls()
        mock.fail(.open, with: EACCES)
        let loaded = withMockedCalls(mock) { StateStore(path: path).load() }
        guard case .unusable(let reason, let movedTo) = loaded else {
            Issue.record("an unreadable state file was used: \(loaded)")
            return
        }
        #expect(reason.contains(String(cString: strerror(EACCES))), "reason: \(reason)")
        #expect(movedTo.map { savedSize($0) } == 60, "the file kept aside is the one that was there")
        #expect(StateStore(path: path).load() == .missing)
    }

    @Test(
        "an unreadable config file: ignored when it is the default one, refused when named or on reload")
    func config() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/config"
        try "sizes = 1, 2, 3\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try Daemon.readConfig(path: path, explicit: false).sizes?.sizes == [1, 2, 3])
        let denied = String(cString: strerror(EACCES))
        for (explicit, reloading) in [(false, false), (true, false), (false, true)] {
            let mock = MockedCalls()
            mock.fail(.open, with: EACCES)
            let outcome = withMockedCalls(mock) { () -> Result<DaemonValues, InvalidValue> in
                do throws(InvalidValue) {
                    return .success(
                        try Daemon.readConfig(path: path, explicit: explicit, reloading: reloading))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let values):
                #expect(
                    !explicit && !reloading && values == DaemonValues(),
                    "explicit \(explicit), reloading \(reloading)")
            case .failure(let error):
                #expect(explicit || reloading, "the default file stops nothing")
                #expect(error.message.contains(denied), "got: \(error.message)")
            }
        }
    }
}
