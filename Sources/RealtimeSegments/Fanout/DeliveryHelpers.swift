import Atomics
import Dispatch
import Foundation
import SegmentsCPUHints

/// Threads that help parallel deliveries: one per core beyond the first (at most 64), started by
/// the first ``prepare()`` or ``run(_:)`` and parked between deliveries. They run user callbacks,
/// so they are scheduled like any app thread, whatever the thread that started them (the engine
/// thread, under `SCHED_BATCH` by default on Linux).
///
/// Threads of the delivery's own, rather than `DispatchQueue.concurrentPerform`: on Linux,
/// libdispatch often gave that no second thread, or one that came too late to help. With these,
/// every core can take part in every delivery.
///
/// Waking a parked thread can take as long as a whole delivery to thousands of callbacks, so a
/// helper woken when the delivery begins often arrives after it is over. The engine thread
/// therefore calls ``prepare()`` when it schedules a parallel delivery: the helpers wake while the
/// delivery's own thread does, spin for up to ``spinLimit`` until the delivery opens, and park
/// again if it does not. (`docs/performance-notes.md`, "Parallel delivery", has the measurements.)
///
/// One delivery at a time uses them. Another category's delivery that finds them busy runs its
/// shares on its own thread, as it would on one core: correct, and never waiting for the helpers.
///
/// Threading: ``prepare()`` and ``run(_:)`` from any thread. No lock is held while `work` runs.
final class DeliveryHelpers: Sendable {
    /// The helpers every parallel delivery in the process shares, one per core beyond the first.
    static let shared = DeliveryHelpers(count: ProcessInfo.processInfo.activeProcessorCount - 1)

    /// How long a woken helper waits, spinning, for a delivery to open before it parks again: a
    /// few wakes of the delivery's own thread on a busy VM.
    static let defaultSpinLimit = Duration.microseconds(250)

    private struct State {
        var threadsStarted = false
        /// A delivery holds the helpers (from ``run(_:)``'s start until its return).
        var busy = false
        /// The number of the latest delivery; the first is 1.
        var delivery: UInt64 = 0
        /// The open delivery's work, `nil` once the calling thread has finished its own run.
        var work: (@Sendable () -> Void)?
        /// Helpers that took the open delivery's work, and those of them that are done with it.
        var joined = 0
        var finished = 0
        /// Bit `i`: helper `i` waits (or is about to wait) on its semaphore, and is owed a signal
        /// by the next ``prepare()`` or ``run(_:)``. Only parked helpers are signalled, so a
        /// semaphore never holds more than one wakeup.
        var parked: UInt64 = 0
    }

    /// How many helper threads there are (0 on one core).
    let count: Int
    /// How long a woken helper spins for a delivery to open before it parks again.
    let spinLimit: Duration
    private let state = Locked(State())
    /// The number of the open delivery, 0 when none is open: what spinning helpers watch, so they
    /// take the lock only once there is work.
    private let openDelivery = ManagedAtomic<UInt64>(0)
    /// One per helper, signalled only while its bit in `State.parked` is set.
    private let wakeups: [DispatchSemaphore]
    /// Signalled once per delivery at most: by the helper that finishes last after the calling
    /// thread has closed the work, which then waits on it (it does not wait when none is left).
    private let allFinished = DispatchSemaphore(value: 0)
    /// How many times a helper left its semaphore.
    private let wakeCount = ManagedAtomic<Int>(0)

    /// `count` is clamped to 0...64: a share is hundreds of callbacks, so more helpers than that
    /// would find the shares gone before they woke.
    init(count: Int, spinLimit: Duration = defaultSpinLimit) {
        self.count = min(max(0, count), 64)
        self.spinLimit = spinLimit
        wakeups = (0..<self.count).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Wakes the parked helpers ahead of a delivery that is about to ``run(_:)``, so that they are
    /// awake when it opens (starting them on first use). Each spins for up to ``spinLimit`` and
    /// parks again if no delivery opened by then. Cheap when they are awake already.
    func prepare() {
        guard count > 0 else { return }
        let (parked, starting) = state.withLock { state -> (UInt64, Bool) in
            defer {
                state.parked = 0
                state.threadsStarted = true
            }
            return (state.parked, !state.threadsStarted)
        }
        if starting { startThreads() }
        signal(parked)
    }

    /// Runs `work` on the calling thread and on every helper that is awake, or wakes, before the
    /// calling thread's run is over, then waits for every helper that took it to return from it.
    /// `work` must share out what it does itself (the delivery's shares, from one set of claims), so
    /// that each run takes what is left and returns when nothing is.
    ///
    /// Returns `false` at once, without running `work`, when there are no helpers or another
    /// delivery holds them.
    func run(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard count > 0 else { return false }
        let opened = state.withLock { state -> (delivery: UInt64, parked: UInt64, starting: Bool)? in
            guard !state.busy else { return nil }
            state.busy = true
            state.delivery &+= 1
            state.work = work
            state.joined = 0
            state.finished = 0
            defer {
                state.parked = 0
                state.threadsStarted = true
            }
            return (state.delivery, state.parked, !state.threadsStarted)
        }
        guard let opened else { return false }
        openDelivery.store(opened.delivery, ordering: .releasing)
        if opened.starting { startThreads() }
        signal(opened.parked)
        work()
        let helpersRunning = state.withLock { state -> Bool in
            state.work = nil
            openDelivery.store(0, ordering: .relaxed)
            return state.finished < state.joined
        }
        if helpersRunning { allFinished.wait() }
        state.withLock { $0.busy = false }
        return true
    }

    /// For tests: how many helpers are parked and owed a signal.
    var parkedCount: Int { state.withLock { $0.parked.nonzeroBitCount } }

    /// For tests: how many times a helper has left its semaphore, woken by a signal.
    var wakes: Int { wakeCount.load(ordering: .relaxed) }

    private func signal(_ parked: UInt64) {
        var parked = parked
        while parked != 0 {
            wakeups[parked.trailingZeroBitCount].signal()
            parked &= parked &- 1
        }
    }

    private func startThreads() {
        for index in 0..<count {
            let thread = Thread { [self] in
                ThreadName.setForCurrentThread("Segments.helper")
                Self.useStandardScheduling()
                helperLoop(index)
            }
            thread.start()
        }
    }

    /// Puts the calling thread under the default policy. On Linux a new thread inherits its
    /// creator's policy, and the helpers are usually started by the engine thread: under
    /// `SCHED_BATCH` (see `SegmentsConfiguration.engineScheduling`) they would run user callbacks
    /// with the policy meant for the engine alone, and which policy they got would depend on the
    /// thread that happened to start them.
    private static func useStandardScheduling() {
        #if os(Linux)
        var parameters = sched_param()
        _ = sched_setscheduler(0, SCHED_OTHER, &parameters)
        #endif
    }

    /// A helper's life: awake (just started, or woken), it spins until a delivery it has not
    /// joined opens or ``spinLimit`` passes, then joins that delivery or parks. After a delivery
    /// it parks at once; the next one wakes it.
    private func helperLoop(_ index: Int) -> Never {
        var lastJoined: UInt64 = 0
        var spin = true
        while true {
            if spin { spinUntilOpen(notOne: lastJoined) }
            // Deciding to park is made under the lock that `prepare` and `run` take to read
            // `parked`, so a delivery that opens meanwhile either is seen here or signals.
            let joined = state.withLock { state -> (@Sendable () -> Void)? in
                if let work = state.work, state.delivery != lastJoined {
                    state.joined += 1
                    lastJoined = state.delivery
                    return work
                }
                state.parked |= 1 << UInt64(index)
                return nil
            }
            guard let work = joined else {
                wakeups[index].wait()
                wakeCount.wrappingIncrement(ordering: .relaxed)
                spin = true
                continue
            }
            work()
            let last = state.withLock { state -> Bool in
                state.finished += 1
                return state.work == nil && state.finished == state.joined
            }
            if last { allFinished.signal() }
            spin = false
        }
    }

    /// Spins until a delivery other than `joined` is open, or for ``spinLimit``. Yields the core
    /// between looks, so a thread the delivery waits for (its own, woken on this core) can run.
    private func spinUntilOpen(notOne joined: UInt64) {
        let limit = UInt64(spinLimit.components.seconds) &* 1_000_000_000
            &+ UInt64(spinLimit.components.attoseconds / 1_000_000_000)
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            let open = openDelivery.load(ordering: .acquiring)
            if open != 0 && open != joined { return }
            if DispatchTime.now().uptimeNanoseconds &- start >= limit { return }
            for _ in 0..<16 { segments_spin_pause() }
            sched_yield()
        }
    }
}
