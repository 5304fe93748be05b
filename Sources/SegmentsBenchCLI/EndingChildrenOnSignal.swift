import Dispatch
import Foundation
import SegmentsBenchKit

/// Runs `body`, ending the builds it runs (``BenchChildren``) if the command is told to end
/// meanwhile: on `SIGINT`, `SIGTERM` or `SIGHUP`, every running build is sent `SIGTERM` (and
/// `SIGKILL` if it still runs 5 s later), a line says so on standard error, and the process exits
/// with 128 + the signal's number, as a shell reports a command a signal ended. The signals'
/// earlier handling is back once `body` returns (see ``handlingSignals(_:keptIgnored:handler:_:)``).
func endingChildrenOnSignal<T>(children: BenchChildren = .shared, _ body: () throws -> T) rethrows -> T {
    try handlingSignals([SIGINT, SIGTERM, SIGHUP], handler: { signalNumber in
        FileHandle.standardError.write(Data(
            "segments-bench: signal \(signalNumber): ending \(children.count) running build(s)\n".utf8))
        children.endAll(becauseOf: signalNumber)
        let deadline = DispatchTime.now() + 5
        while children.count > 0, DispatchTime.now() < deadline { usleep(10_000) }
        children.killAll()
        exit(128 + signalNumber)
    }, body)
}
