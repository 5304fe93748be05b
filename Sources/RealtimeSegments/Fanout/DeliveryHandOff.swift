import Dispatch
import SegmentsCPUHints
import Synchronization

/// The spin window of one category's delivery queue: after a delivery, the block that ran it keeps
/// looking, for ``SegmentsConfiguration/deliverySpinWindow``, for the category's next delivery, and
/// the engine hands that delivery straight to it instead of scheduling a block. The next delivery
/// then starts within a fraction of a microsecond, where waking a queue's thread takes several.
///
/// Order is kept: a delivery is handed over only while a block spins with no block queued behind
/// it, and a block starts to spin only when none is queued. Both decisions are read-modify-writes
/// of one atomic word, so the engine cannot queue a block that a handed delivery would overtake.
///
/// A check also readies its categories' blocks as its fetch starts (``prepare()``): a block
/// scheduled then spins for the check's delivery, so a check that comes long after the last
/// delivery, as checks do with a debounce of seconds, still finds its thread running. A block
/// still spinning after the last delivery counts its window from the fetch's start instead.
///
/// Threading: ``offer(_:)`` and ``prepare()`` from the engine thread (the one deliverer);
/// ``blockStarted()`` and ``awaitNext()`` from the category queue's blocks, one at a time.
final class DeliveryHandOff: Sendable {
    /// The low two bits: what the spinning block is doing. The rest: blocks scheduled and not
    /// started yet, in units of ``queuedUnit``.
    private let state = Atomic<UInt64>(0)
    private static let idle: UInt64 = 0
    private static let spinning: UInt64 = 1
    /// The engine won the spinning block and is storing the delivery in ``slot``.
    private static let claimed: UInt64 = 2
    /// The delivery is in ``slot``.
    private static let handed: UInt64 = 3
    private static let modeMask: UInt64 = 3
    private static let queuedUnit: UInt64 = 4
    /// The handed delivery; written once between ``claimed`` and ``handed``, read once after.
    private let slot = Mutex<DeliveryExecutor.Job?>(nil)
    /// Set once by ``close()``.
    private let closed = Atomic<Bool>(false)
    private let windowNanoseconds: UInt64
    /// When the spinning block's window began: its last delivery, or a later check's fetch start
    /// (``prepare()``). Written by the spinning block and the engine; read by the spinning block.
    private let windowStart = Atomic<UInt64>(0)
    /// Reads the monotonic clock in nanoseconds (injected by tests).
    private let now: @Sendable () -> UInt64
    /// Nanoseconds spent spinning, summed once per spin (``EngineCounters/deliverySpinNanoseconds``).
    private let counters: EngineCounters

    /// `window` is how long a block spins after each delivery (positive); `now` reads the
    /// monotonic clock in nanoseconds.
    init(
        window: Duration, counters: EngineCounters,
        now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        self.windowNanoseconds = window.clampedNanoseconds
        self.counters = counters
        self.now = now
    }

    /// Hands `job` to the block spinning for it; `false` if none spins, and then one block more is
    /// counted as scheduled: the caller schedules it, and the block calls ``blockStarted()`` first.
    func offer(_ job: DeliveryExecutor.Job) -> Bool {
        var current = state.load(ordering: .acquiring)
        while true {
            if current == Self.spinning {
                let (won, now) = state.compareExchange(
                    expected: Self.spinning, desired: Self.claimed, ordering: .acquiringAndReleasing)
                if won {
                    slot.withLock { $0 = job }
                    state.store(Self.handed, ordering: .releasing)
                    return true
                }
                current = now
                continue
            }
            let (counted, now) = state.compareExchange(
                expected: current, desired: current &+ Self.queuedUnit, ordering: .acquiringAndReleasing)
            if counted { return false }
            current = now
        }
    }

    /// A check's fetch starts: if no block of the queue is queued or spinning, counts one block as
    /// scheduled and returns `true`. The caller schedules that block, which calls
    /// ``blockStarted()`` and then ``awaitNext()``: it spins for the check's delivery, so that the
    /// thread's wake-up overlaps the fetch instead of following it. `false` after ``close()`` or
    /// while a block is queued or spins: that block runs first and spins after its delivery as
    /// usual; a block that spins counts its window from this call, so it still spins for the
    /// check's delivery when the fetch outlasts the rest of the window it began at its last
    /// delivery. Engine thread.
    func prepare() -> Bool {
        guard !closed.load(ordering: .acquiring) else { return false }
        // A block spinning after the last delivery counts its window from now: the check's
        // delivery comes after this fetch, which may outlast what is left of that window. A block
        // that judged its window passed from an earlier start before this store looks at the
        // start again once it has stopped spinning (see awaitNext()). Sequentially consistent,
        // with the exchange below and the block's own, so that it then sees this store.
        windowStart.max(now(), ordering: .sequentiallyConsistent)
        return state.compareExchange(expected: Self.idle, desired: Self.queuedUnit, ordering: .sequentiallyConsistent)
            .exchanged
    }

    /// The engine stopped: a spinning block stops at its next look, and no block spins after
    /// this, so a stopped client keeps no thread busy. An offer that races with the close may
    /// still be handed to the block, which then runs it as usual; later offers find no block
    /// spinning. Any thread.
    func close() {
        closed.store(true, ordering: .releasing)
    }

    /// Whether a block spins now, with no delivery claimed (for tests: another thread may change it).
    var isSpinning: Bool { state.load(ordering: .acquiring) == Self.spinning }

    /// A scheduled block starts (its first step).
    func blockStarted() {
        state.wrappingSubtract(Self.queuedUnit, ordering: .acquiringAndReleasing)
    }

    /// After a delivery, or first thing in a block scheduled by ``prepare()``: spins for the window
    /// for a handed delivery and returns it, or returns `nil` at once when a block is queued behind
    /// this one (it runs next, in order) or after ``close()``, or when the window passes.
    func awaitNext() -> DeliveryExecutor.Job? {
        guard !closed.load(ordering: .acquiring) else { return nil }
        // The window's start is stored before the block can be seen spinning, and only raises it,
        // so a restart by prepare() is never lost to it.
        let start = now()
        windowStart.max(start, ordering: .sequentiallyConsistent)
        guard state.compareExchange(expected: Self.idle, desired: Self.spinning, ordering: .acquiringAndReleasing).exchanged
        else { return nil }
        var looks: UInt64 = 0
        defer {
            counters.deliverySpinNanoseconds.wrappingIncrement(
                by: Int(truncatingIfNeeded: now() &- start), ordering: .relaxed)
        }
        while true {
            let word = state.load(ordering: .acquiring)
            if word & Self.modeMask == Self.handed {
                let job = slot.withLock { $0.take() }
                // Back to idle, keeping the count of blocks the engine queued meanwhile: they run
                // after this delivery, and this block does not spin again before them.
                state.wrappingSubtract(Self.handed, ordering: .acquiringAndReleasing)
                return job
            }
            looks &+= 1
            // The clock is read every 64 looks: a read costs more than a look.
            if word == Self.spinning,
                closed.load(ordering: .relaxed) || looks & 63 == 0 && windowHasPassed()
            {
                if state.compareExchange(expected: Self.spinning, desired: Self.idle, ordering: .sequentiallyConsistent).exchanged {
                    // A fetch that restarted the window after it was judged found this block
                    // spinning and readied none: spin on for its delivery, unless a block was
                    // queued meanwhile (it runs first) or the client stopped.
                    if !closed.load(ordering: .acquiring), !windowHasPassed(),
                        state.compareExchange(expected: Self.idle, desired: Self.spinning, ordering: .acquiringAndReleasing).exchanged
                    {
                        continue
                    }
                    return nil
                }
                continue  // claimed meanwhile: the delivery is being stored
            }
            segments_spin_pause()
        }
    }

    /// Whether the window that began at ``windowStart`` has passed. The start is read before the
    /// clock, so the time read is never earlier than a start read.
    private func windowHasPassed() -> Bool {
        let windowBegan = windowStart.load(ordering: .sequentiallyConsistent)
        let time = now()
        return time >= windowBegan && time - windowBegan >= windowNanoseconds
    }
}
