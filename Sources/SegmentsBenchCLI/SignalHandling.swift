import Dispatch
import Foundation

/// Runs `body` with `signals` handled by `handler` (on a background queue, by dispatch sources,
/// which see a signal even in a script's background job that starts with SIGINT ignored) instead
/// of their earlier handling, which is back once `body` returns. A signal in `keptIgnored` that
/// the process already ignores (nohup's SIGHUP) stays ignored and is not handled.
func handlingSignals<T>(
    _ signals: [Int32], keptIgnored: Set<Int32> = [], handler: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T
) rethrows -> T {
    let handled = signals.compactMap { signalNumber -> (Int32, sig_t?)? in
        let previous = signal(signalNumber, SIG_IGN)
        if keptIgnored.contains(signalNumber), unsafeBitCast(previous, to: UInt.self) == unsafeBitCast(SIG_IGN, to: UInt.self) {
            return nil
        }
        return (signalNumber, previous)
    }
    let sources = handled.map { signalNumber, _ in
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { handler(signalNumber) }
        source.resume()
        return source
    }
    defer {
        for source in sources { source.cancel() }
        for (signalNumber, previous) in handled { signal(signalNumber, previous) }
    }
    return try body()
}
