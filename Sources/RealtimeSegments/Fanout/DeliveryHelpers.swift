import Dispatch
import Foundation

/// Threads that help parallel deliveries: one per core beyond the first, started by the first
/// parallel delivery and parked between deliveries.
///
/// Parallel delivery used `DispatchQueue.concurrentPerform` before. On Linux, libdispatch often
/// gave it no second thread: in two `fanout-sweep --quick --callbacks 100000` runs on a 2-core AMD
/// EPYC VM (21 parallel deliveries each; temporary probes, not kept), a pool thread joined in 5
/// and 4 of them, 30–46 µs after the delivery began in the first three of the first run and
/// 0.85–2.1 ms after in the other six; in the rest the calling thread ran every share itself.
/// These threads are the delivery's own, so every core can take part in every delivery.
///
/// One delivery at a time uses them. Another category's delivery that finds them busy runs its
/// shares on its own thread, as it would on one core: correct, and never waiting for the helpers.
///
/// Threading: ``run(_:)`` from any thread. No lock is held while `work` runs.
final class DeliveryHelpers: Sendable {
    /// The helpers every parallel delivery in the process shares, one per core beyond the first.
    static let shared = DeliveryHelpers(count: ProcessInfo.processInfo.activeProcessorCount - 1)

    private struct State {
        var threadsStarted = false
        /// A delivery holds the helpers (from ``run(_:)``'s start until its return).
        var busy = false
        /// The open delivery's work, `nil` once the calling thread has finished its own run.
        var work: (@Sendable () -> Void)?
        /// Helpers that took the open delivery's work, and those of them that are done with it.
        var joined = 0
        var finished = 0
    }

    /// How many helper threads there are (0 on one core).
    let count: Int
    private let state = Locked(State())
    /// One per helper: signalled once per delivery. A helper that wakes after that delivery is
    /// over finds no work and parks again; one that wakes during a later delivery helps that one.
    private let wakeups: [DispatchSemaphore]
    /// Signalled once per delivery at most: by the helper that finishes last after the calling
    /// thread has closed the work, which then waits on it (it does not wait when none is left).
    private let allFinished = DispatchSemaphore(value: 0)

    init(count: Int) {
        self.count = max(0, count)
        wakeups = (0..<self.count).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Runs `work` on the calling thread and on every helper that wakes before the calling
    /// thread's run is over, then waits for every helper that took it to return from it. `work`
    /// must share out what it does itself (the delivery's shares, from one counter), so that each
    /// run takes what is left and returns when nothing is.
    ///
    /// Returns `false` at once, without running `work`, when there are no helpers or another
    /// delivery holds them.
    func run(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard count > 0 else { return false }
        let starting = state.withLock { state -> Bool? in
            guard !state.busy else { return nil }
            state.busy = true
            state.work = work
            state.joined = 0
            state.finished = 0
            defer { state.threadsStarted = true }
            return !state.threadsStarted
        }
        guard let starting else { return false }
        if starting { startThreads() }
        for wakeup in wakeups { wakeup.signal() }
        work()
        let helpersRunning = state.withLock { state -> Bool in
            state.work = nil
            return state.finished < state.joined
        }
        if helpersRunning { allFinished.wait() }
        state.withLock { $0.busy = false }
        return true
    }

    private func startThreads() {
        for index in 0..<count {
            let thread = Thread { [self] in
                ThreadName.setForCurrentThread("Segments.helper")
                helperLoop(index)
            }
            thread.start()
        }
    }

    private func helperLoop(_ index: Int) -> Never {
        while true {
            wakeups[index].wait()
            let work = state.withLock { state -> (@Sendable () -> Void)? in
                guard let work = state.work else { return nil }
                state.joined += 1
                return work
            }
            guard let work else { continue }
            work()
            let last = state.withLock { state -> Bool in
                state.finished += 1
                return state.work == nil && state.finished == state.joined
            }
            if last { allFinished.signal() }
        }
    }
}
