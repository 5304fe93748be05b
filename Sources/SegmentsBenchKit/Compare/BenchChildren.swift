import Foundation
import Synchronization

/// The builds a command runs as child processes (``BenchBinary``), so that they end with it.
///
/// `compare` and `calibrate` run for up to hours; a run left behind when the command is told to
/// end (Ctrl-C, a CI job's timeout) would keep loading the machine the next measurement uses.
/// ``endAll()`` ends every child running and refuses the ones not started yet.
///
/// Threading: every member from any thread.
public final class BenchChildren: Sendable {
    /// The children of this process's commands.
    public static let shared = BenchChildren()

    private struct State {
        var running: Set<pid_t> = []
        var ended = false
        var signal: Int32?
    }

    private let state = Mutex(State())

    public init() {}

    /// The children running now.
    public var count: Int { state.withLock { $0.running.count } }

    /// Whether ``endAll()`` ran: no child starts from then on.
    public var isEnded: Bool { state.withLock { $0.ended } }

    /// The signal that ended the command, when ``endAll(becauseOf:)`` was given one.
    public var endingSignal: Int32? { state.withLock { $0.signal } }

    /// Sends `SIGTERM` to every running child and refuses later ones (``adopt(_:)``); `signal` is
    /// what told the command to end, if a signal did.
    public func endAll(becauseOf signal: Int32? = nil) {
        let running = state.withLock { state in
            state.ended = true
            state.signal = state.signal ?? signal
            return state.running
        }
        for pid in running { kill(pid, SIGTERM) }
    }

    /// Sends `SIGKILL` to the children still running.
    public func killAll() {
        for pid in state.withLock({ $0.running }) { kill(pid, SIGKILL) }
    }

    /// Records a started child; `false` if ``endAll()`` ran first, and the caller must end it.
    func adopt(_ pid: pid_t) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.running.insert(pid)
            return true
        }
    }

    /// Forgets a child that has exited.
    func release(_ pid: pid_t) {
        _ = state.withLock { $0.running.remove(pid) }
    }
}
