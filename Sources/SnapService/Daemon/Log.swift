import DBusKit
import Glibc
import SystemCalls

/// One line on stderr through the programs' one sink (SystemCalls), `writeDiagnostic`, always prefixed "snapsized"
/// (journald adds the time): also when SnapService runs inside a test process.
func log(_ message: String) {
    writeDiagnostic(message, program: "snapsized")
}

/// One kind of line (say, refused accessibility writes) at most once per `interval` seconds, so a
/// client repeating a refused write cannot flood the journal. The lines held back are counted in the
/// next one that is written.
final class LimitedLog {
    let interval: Double
    private let now: () -> Double
    private let write: (String) -> Void
    private var lastWritten: Double?
    private var heldBack = 0

    init(
        interval: Double, now: @escaping () -> Double = monotonicNow,
        write: @escaping (String) -> Void = { SnapService.log($0) }
    ) {
        self.interval = interval
        self.now = now
        self.write = write
    }

    func log(_ message: String) {
        let time = now()
        if let lastWritten, time - lastWritten < interval {
            heldBack += 1
            return
        }
        let note = heldBack == 0 ? "" : " (\(heldBack) more like it not shown since the last one)"
        heldBack = 0
        lastWritten = time
        write(message + note)
    }
}
