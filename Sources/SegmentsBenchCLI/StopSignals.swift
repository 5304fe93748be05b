import Foundation

/// SIGINT and SIGTERM as a stop request that a thread waits for, caught from the moment
/// ``init()`` returns.
///
/// A dispatch signal source is armed later, on libdispatch's manager thread; until then a signal
/// the process ignores (a script's background job starts with SIGINT ignored) is lost, and a
/// script that signals as soon as it reads the server's port line would find it still running.
/// Here the handler is installed by `sigaction` before ``init()`` returns, and writes a byte to a
/// pipe (`write` is async-signal-safe) that ``wait(timeout:)`` polls.
///
/// Threading: one instance per process at a time; ``wait(timeout:)`` from one thread.
final class StopSignals {
    private static let signals = [SIGINT, SIGTERM]
    private let readEnd: Int32
    private let writeEnd: Int32
    private var previous: [sigaction] = []

    /// Installs the handlers. Returns `nil` if no pipe could be made.
    init?() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        (readEnd, writeEnd) = (ends[0], ends[1])
        // The write end never blocks a handler: a full pipe already says "stop".
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        stopSignalWriteEnd = writeEnd
        for signalNumber in Self.signals {
            var action = sigaction()
            #if os(Linux)
            action.__sigaction_handler.sa_handler = stopSignalHandler
            #else
            action.__sigaction_u.__sa_handler = stopSignalHandler
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(signalNumber, &action, &old)
            previous.append(old)
        }
    }

    /// Waits until a signal came or `timeout` passed (`nil`: no limit). Returns `true` for a signal.
    func wait(timeout: Duration?) -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { return false }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }

    /// Puts the signals' earlier handling back and closes the pipe.
    func restore() {
        for (signalNumber, old) in zip(Self.signals, previous) {
            var old = old
            sigaction(signalNumber, &old, nil)
        }
        stopSignalWriteEnd = -1
        close(readEnd)
        close(writeEnd)
    }
}

/// The pipe's write end, for the handler, which cannot capture context. A plain word: written
/// by ``StopSignals`` before its handlers are installed and after they are removed (one instance
/// at a time), read by a handler in between, so no access races with a write.
nonisolated(unsafe) private var stopSignalWriteEnd: Int32 = -1

private func stopSignalHandler(_: Int32) {
    var byte: UInt8 = 1
    _ = write(stopSignalWriteEnd, &byte, 1)
}
