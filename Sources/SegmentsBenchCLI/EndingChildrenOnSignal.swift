import Dispatch
import Foundation
import SegmentsBenchKit

/// Runs `body`, ending the builds it runs (``BenchChildren``) if the command is told to end
/// meanwhile: on `SIGINT`, `SIGTERM` or `SIGHUP`, every running build is sent `SIGTERM` (and
/// `SIGKILL` if it still runs 5 s later), a line says so on standard error, and the process exits
/// with 128 + the signal's number, as a shell reports a command a signal ended. The signals'
/// default handling is back once `body` returns.
func endingChildrenOnSignal<T>(children: BenchChildren = .shared, _ body: () throws -> T) rethrows -> T {
    let signals = [SIGINT, SIGTERM, SIGHUP]
    let sources = signals.map { signalNumber in
        // Handled by the dispatch source alone, which sees the signal even in a script's
        // background job (that starts with SIGINT ignored).
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler {
            FileHandle.standardError.write(Data(
                "segments-bench: signal \(signalNumber): ending \(children.count) running build(s)\n".utf8))
            children.endAll(becauseOf: signalNumber)
            let deadline = DispatchTime.now() + 5
            while children.count > 0, DispatchTime.now() < deadline { usleep(10_000) }
            children.killAll()
            exit(128 + signalNumber)
        }
        source.resume()
        return source
    }
    defer {
        for source in sources { source.cancel() }
        for signalNumber in signals { signal(signalNumber, SIG_DFL) }
    }
    return try body()
}
