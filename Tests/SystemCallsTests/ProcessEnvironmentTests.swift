@_spi(Testing) import SystemCalls
import Foundation
import Testing

/// `processEnvironment()` reads `environ` itself (the programs link no Foundation).
@Suite("processEnvironment")
struct ProcessEnvironmentTests {
    @Test(
        "each entry split at its first '=': a value holding '=', an empty value, non-ASCII text; an entry without '=' left out"
    )
    func entries() {
        let texts = [
            "PLAIN=1", "EQUALS=a=b=c", "EMPTY=", "TEXT=tamanho é 60 pontos", "NO_EQUALS", "=nameless"
        ]
        var entries: [UnsafeMutablePointer<CChar>?] = texts.map { strdup($0) } + [nil]
        defer { entries.forEach { free($0) } }
        let environment = entries.withUnsafeMutableBufferPointer {
            environmentDictionary($0.baseAddress!)
        }
        #expect(
            environment == [
                "PLAIN": "1", "EQUALS": "a=b=c", "EMPTY": "", "TEXT": "tamanho é 60 pontos",
                "": "nameless"
            ])
    }

    @Test("the process's own environment, as ProcessInfo reads it")
    func matchesProcessInfo() {
        #expect(processEnvironment() == ProcessInfo.processInfo.environment)
    }
}
