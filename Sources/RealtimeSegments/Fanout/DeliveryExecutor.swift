import Atomics
import Dispatch
import Foundation
import Logging

/// Invokes the callbacks of one check, off the engine thread.
///
/// One serial queue per category, so a slow callback delays only its own category, and checks of
/// one category are delivered in order. A check's delivery for a category is one block: the payload
/// is built once and the same array is handed to every callback (no per-callback dispatch or
/// allocation). Before each callback the block re-checks the customer generation, so once a
/// customer switch has happened no callback receives the previous customer's data; and it skips
/// registrations removed meanwhile.
///
/// Threading: ``deliver(_:)`` and ``stop()`` are called by the engine thread only; blocks run on the
/// category queues.
final class DeliveryExecutor {
    /// One category's delivery for one check.
    struct Job: Sendable {
        var category: SegmentCategory
        /// The full current list of the category (server order), `[]` if the response lacks it.
        var segments: [Segment]
        /// `true` if the category changed: notify every registration. `false`: only pending first loads.
        var notifyAll: Bool
        /// The customer generation the data belongs to.
        var generation: UInt64
        /// Numbers the deliveries of one executor in the order the engine made them (from 1); set
        /// by ``deliver(_:)``.
        var sequence: UInt64 = 0
        /// Whether a delivery thread stamps ``CheckTimeline/Stage/deliveryStarted`` when it starts
        /// this job (a check's first delivery, when ``SegmentsConfiguration/checkTimeline`` is set).
        /// A flag, not the timeline: a reference in every job would be retained with it.
        var stampsStart = false
    }

    private let registry: CallbackRegistry
    private let identity: IdentityCell
    private let channels: EngineChannels
    private let mode: DeliveryMode
    private let logger: Logger
    private let counters: EngineCounters
    /// One category's lane and what the engine last sent down it.
    struct Entry {
        let category: SegmentCategory
        let lane: DeliveryLane
        /// The last delivery to every callback (`notifyAll`) scheduled on the lane, and the
        /// customer generation it was for.
        var lastFullDelivery: (sequence: UInt64, generation: UInt64)?
    }

    /// Each category's lane, made on its first delivery. Searched in order: an app has a handful
    /// of categories, and comparing them costs less than hashing one. Engine thread only, by calls
    /// that never overlap: its run-time exclusivity check, paid on every delivery, is turned off.
    @exclusivity(unchecked) private(set) var queues: [Entry] = []
    private let spinWindow: Duration
    /// The last ``Job/sequence`` given out. Engine thread only.
    private var lastSequence: UInt64 = 0

    init(
        registry: CallbackRegistry, identity: IdentityCell, channels: EngineChannels, mode: DeliveryMode,
        spinWindow: Duration = .zero, logger: Logger, counters: EngineCounters
    ) {
        self.spinWindow = spinWindow
        self.registry = registry
        self.identity = identity
        self.channels = channels
        self.mode = mode
        self.logger = logger
        self.counters = counters
    }

    /// Schedules `job` on its category's queue, or hands it to that queue's block if one is still
    /// in its spin window (``DeliveryHandOff``).
    func deliver(_ job: consuming Job) {
        let index = entryIndex(for: job.category)
        lastSequence += 1
        job.sequence = lastSequence
        if job.notifyAll { queues[index].lastFullDelivery = (job.sequence, job.generation) }
        let lane = queues[index].lane
        channels.beginWork()
        if let handOff = lane.handOff, handOff.offer(job) {
            counters.deliveriesHandedOff.wrappingIncrement(ordering: .relaxed)
        } else {
            schedule(job, on: lane)
        }
        if mode == .parallel, Self.splits(registry.snapshot().subscribers(of: job.category)?.count ?? 0) {
            // The helpers wake now rather than when the delivery starts (see `DeliveryHelpers`):
            // a wake can take as long as the delivery. After the queue's thread, not before:
            // woken in the other order, both tended to land on the one idle core, and the helper
            // then waited behind the delivery it was to help.
            DeliveryHelpers.shared.prepare()
        }
    }

    /// A check's fetch starts: with a spin window, schedules a block on the queue of each category
    /// with callbacks that has no block queued or spinning, to spin for the check's delivery
    /// (``DeliveryHandOff/prepare()``). Without a window, does nothing, and loads nothing.
    func prepareForCheck() {
        guard spinWindow > .zero else { return }
        for category in registry.snapshot().categories {
            let lane = queues[entryIndex(for: category)].lane
            if let handOff = lane.handOff, handOff.prepare() { schedule(nil, on: lane) }
        }
    }

    /// The categories whose last delivery to every callback was made for another customer
    /// generation than `generation` and has not run to its end for it: a switch cut it off (or
    /// will, before its next callback), so its callbacks may still show what they had before it.
    /// Each is returned once; the check that asks delivers it again. Engine thread only.
    func categoriesCutOff(before generation: UInt64) -> [SegmentCategory] {
        var cutOff: [SegmentCategory] = []
        for index in queues.indices {
            guard let last = queues[index].lastFullDelivery, last.generation != generation else { continue }
            if queues[index].lane.completedFullDelivery.load(ordering: .acquiring) < last.sequence {
                cutOff.append(queues[index].category)
            }
            queues[index].lastFullDelivery = nil
        }
        return cutOff
    }

    /// Schedules a block on `lane`'s queue that runs `job` (if any), then, while the lane's
    /// hand-off hands it more, those: `nil` is a block from ``prepareForCheck()``, which starts by
    /// spinning for one.
    private func schedule(_ job: Job?, on lane: DeliveryLane) {
        let registry = registry
        let identity = identity
        let channels = channels
        let mode = mode
        let logger = logger
        let counters = counters
        lane.queue.async {
            lane.handOff?.blockStarted()
            var next: Job? = job ?? lane.handOff?.awaitNext()
            while let current = next.take() {
                if current.stampsStart { counters.checkTimeline?.mark(.deliveryStarted) }
                let full = current.notifyAll ? (sequence: current.sequence, generation: current.generation) : nil
                // Consumed: a handed delivery's payload is let go when it is over, not kept
                // through the spin window and freed (its last reference, once the engine has
                // moved on) when the next delivery arrives, ahead of that delivery's first
                // callback. The block's own first job also stays in its closure, which lets it go
                // when the block ends, after its window and off any delivery's path: boxing it to
                // let it go sooner would allocate once per delivery scheduled.
                let ranToItsEnd = Self.perform(
                    consume current, registry: registry, identity: identity, mode: mode, logger: logger, counters: counters)
                // Ran to its end for its customer: no switch cut it off (`categoriesCutOff`). A
                // switch after the last callback (made by that callback, say) cut nothing off.
                if let full, ranToItsEnd {
                    lane.completedFullDelivery.store(full.sequence, ordering: .releasing)
                }
                channels.endWork()
                next = lane.handOff?.awaitNext()
            }
        }
    }

    /// The engine stopped: no category's block spins for a next delivery after this
    /// (``DeliveryHandOff/close()``). Deliveries already scheduled still run.
    func stop() {
        for entry in queues { entry.lane.handOff?.close() }
    }

    /// Lets the delivery threads just woken by ``deliver(_:)`` have this core first (engine
    /// thread, once per check that scheduled deliveries).
    ///
    /// A woken delivery thread often lands on the engine's own core, where it would wait for the
    /// engine to finish its loop turn and fall asleep. Yielding here lets the delivery start
    /// first; the engine finishes its turn afterwards or on another core. With no other thread
    /// ready on this core, the call returns at once.
    ///
    /// Linux only: the gain was measured there (`docs/performance-notes.md`), not on Apple
    /// platforms, whose schedulers treat a yielding thread differently.
    func yieldToDeliveries() {
        #if os(Linux)
        sched_yield()
        #endif
    }

    /// The index of `category`'s entry in ``queues``, made if it has none.
    private func entryIndex(for category: SegmentCategory) -> Int {
        for index in queues.indices where queues[index].category == category {
            return index
        }
        let lane = DeliveryLane(
            queue: DispatchQueue(label: "RealtimeSegments.delivery.\(category.name)", qos: .utility),
            handOff: spinWindow > .zero ? DeliveryHandOff(window: spinWindow, counters: counters) : nil)
        queues.append(Entry(category: category, lane: lane))
        return queues.count - 1
    }

    /// One delivery on the category's queue, with its counters and log line. Takes the job over and
    /// lets it go before returning. Returns `false` if a customer switch stopped it before a callback.
    private static func perform(
        _ job: consuming Job, registry: CallbackRegistry, identity: IdentityCell, mode: DeliveryMode, logger: Logger,
        counters: EngineCounters
    ) -> Bool {
        let (notified, stopped) = runDelivery(job, registry: registry, identity: identity, mode: mode)
        counters.callbacksNotified.wrappingIncrement(by: notified, ordering: .relaxed)
        if stopped {
            counters.staleDeliveriesDropped.wrappingIncrement(ordering: .relaxed)
            logger.debug("\(SegmentsLogMessage.newDataIgnoredDifferentCustomer)", metadata: ["category": "\(job.category)"])
        } else {
            logger.trace("Segments: Notified \(notified) callbacks of category \(job.category)")
        }
        return !stopped
    }

    /// One category's delivery for one check on the calling thread (the body of the block that
    /// ``deliver(_:)`` schedules): loads the registrations, then runs the ordered or parallel loop.
    /// Returns how many callbacks were invoked. Out of line (once per delivery): `segments-bench`'s
    /// instruction counts of a check collect inside it.
    @inline(never)
    static func runDelivery(
        _ job: Job, registry: CallbackRegistry, identity: IdentityCell, mode: DeliveryMode
    ) -> (notified: Int, stopped: Bool) {
        // Order matters. The removal epoch is read before the snapshot: a removal that lands in
        // between is then seen as a moved epoch, and the loop checks each registration. The
        // first-load count is read after it: a registration in the snapshot was counted before
        // it was published.
        let removalEpoch = registry.removalEpoch
        guard let subscribers = registry.snapshot().subscribers(of: job.category) else { return (0, false) }
        let context = LoopContext(
            job: job, registry: registry, identity: identity, removalEpoch: removalEpoch,
            holdsRemoved: subscribers.hasRemoved, firstLoadsPending: registry.pendingFirstLoads > 0)
        switch mode {
        case .ordered:
            return run(context, subscribers, 0..<subscribers.count)
        case .parallel:
            return runParallel(context, subscribers)
        }
    }

    /// What a delivery loop reads once per check, so the per-callback path is a closure call plus two
    /// loads of cache lines it already holds.
    private struct LoopContext {
        let job: Job
        let registry: CallbackRegistry
        let identity: IdentityCell
        /// The removal epoch when the check started; a change means some subscriber may be inactive.
        let removalEpoch: UInt64
        /// The snapshot holds entries of removed registrations (left behind until the registry
        /// compacts them): every subscriber's `active` flag is looked at.
        let holdsRemoved: Bool
        /// `false` when no first load was pending when the check started: then no subscriber of
        /// this snapshot has one (a pending first load is counted before its registration is
        /// published), and the loop skips the registration objects altogether.
        let firstLoadsPending: Bool
    }

    /// Runs the callbacks of `subscribers` at the indices in `range`, in order; returns how many
    /// were invoked and whether a customer switch stopped the loop.
    private static func run(
        _ context: LoopContext, _ subscribers: SubscriberRun, _ range: Range<Int>
    ) -> (notified: Int, stopped: Bool) {
        let size = SubscriberRun.chunkSize
        var notified = 0
        var start = range.lowerBound
        while start < range.upperBound {
            // One chunk at a time, as a plain array: the inner loop is the closure loop it was
            // before chunks existed.
            let chunk = subscribers.chunks[start / size]
            let offset = start % size
            let end = min(range.upperBound - start + offset, chunk.count)
            let (count, stopped) = run(context, chunk, offset..<end)
            notified += count
            if stopped { return (notified, true) }
            start += end - offset
        }
        return (notified, false)
    }

    /// Runs the callbacks of `chunk` at `range` in order; returns how many were invoked and whether
    /// a customer switch stopped the loop.
    @inline(__always)
    private static func run(
        _ context: LoopContext, _ chunk: ContiguousArray<Subscriber>, _ range: Range<Int>
    ) -> (notified: Int, stopped: Bool) {
        let job = context.job
        let payload = job.segments
        var notified = 0
        for index in range {
            // The generation is re-read before every callback: a switch that happened while this
            // loop ran stops it here, and the remaining first loads stay pending.
            guard context.identity.generation == job.generation else { return (notified, true) }
            let subscriber = chunk[index]
            if context.holdsRemoved || context.registry.removalEpoch != context.removalEpoch, !subscriber.registration.isActive {
                continue
            }
            if context.firstLoadsPending || !job.notifyAll {
                let registration = subscriber.registration
                if job.notifyAll {
                    context.registry.releaseFirstLoad(of: registration)
                } else {
                    guard registration.hasPendingFirstLoad, context.registry.releaseFirstLoad(of: registration) else { continue }
                }
            }
            subscriber.onNewData(payload)
            notified += 1
        }
        return (notified, false)
    }

    /// Subscribers a parallel worker claims at a time: four chunks. Small enough that the workers
    /// finish within one share of each other, large enough that the shared claim counter is
    /// touched a few dozen times per 10,000 callbacks.
    static let parallelShare = 4 * SubscriberRun.chunkSize

    /// Whether a parallel delivery to `count` subscribers is shared out at all: at least two shares.
    private static func splits(_ count: Int) -> Bool { count >= 2 * parallelShare }

    /// Splits the subscribers over every core: the calling thread and the ``DeliveryHelpers`` (one
    /// per other core) take shares of ``parallelShare`` subscribers until none are left, so no two
    /// of them write neighbouring registrations' cache lines and each share stays in order. Each
    /// thread claims from the end of the list that belongs to its core (``ShareClaims``), so a core
    /// runs mostly the callbacks it ran in the previous delivery, whose lines its cache still holds.
    ///
    /// Shares are claimed as the threads go rather than assigned up front: the calling thread
    /// starts at once while the helpers are being woken (tens of microseconds on a busy machine),
    /// and a helper that starts late, whose core is taken by another process, or that is held by
    /// a slow callback leaves the unclaimed shares to the others. A callback that blocks holds
    /// back only the rest of its own share. When the helpers are busy with another category's
    /// delivery, this one runs on the calling thread alone.
    private static func runParallel(_ context: LoopContext, _ subscribers: SubscriberRun) -> (notified: Int, stopped: Bool) {
        let helpers = DeliveryHelpers.shared
        let count = subscribers.count
        guard helpers.count > 0, splits(count) else {
            return run(context, subscribers, 0..<count)
        }
        let shares = (count + parallelShare - 1) / parallelShare
        // The claims and the total live on this thread's stack: `DeliveryHelpers.run` returns only
        // after every thread that took the work is done with them.
        return withUnsafeTemporaryAllocation(of: UnsafeAtomic<UInt64>.Storage.self, capacity: 3) { storage in
            let base = storage.baseAddress!
            let claims = ShareClaims(shares: shares, storage: base)
            (base + 1).initialize(to: .init(0))
            (base + 2).initialize(to: .init(0))
            defer { base.deinitialize(count: 3) }
            let total = UnsafeAtomic<UInt64>(at: base + 1)
            let stops = UnsafeAtomic<UInt64>(at: base + 2)
            let work: @Sendable () -> Void = {
                let end = ShareClaims.End.forCurrentCPU()
                var notified = 0
                while let share = claims.claim(from: end) {
                    let start = share * parallelShare
                    let (ran, switched) = run(context, subscribers, start..<min(start + parallelShare, count))
                    notified += ran
                    // A customer switch: the other threads see it before their next callback.
                    if switched {
                        stops.wrappingIncrement(ordering: .relaxed)
                        break
                    }
                }
                total.wrappingIncrement(by: UInt64(notified), ordering: .relaxed)
            }
            if !helpers.run(work) { work() }
            return (Int(total.load(ordering: .acquiring)), stops.load(ordering: .acquiring) > 0)
        }
    }
}

/// For benchmarks only: one category's delivery of a changed list (every callback notified), in
/// order, run synchronously on the calling thread through the code the engine's delivery block runs
/// (``DeliveryExecutor``'s loop), over a private registry and customer identity. Leaves out only the
/// hop onto the category's queue and the counters.
@_spi(Benchmarks)
public final class SynchronousDelivery: Sendable {
    private let registry = CallbackRegistry()
    private let identity = IdentityCell(
        IdentitySnapshot(customerIds: [CustomerIdKey.cookie: "synchronous-delivery"], generation: 1))

    /// Registers `callbacks` (in order, as ``SegmentationManager/addCallback(callbackData:)`` would).
    @_spi(Benchmarks)
    public init(callbacks: [SegmentCallbackData]) {
        registry.add(callbacks)
    }

    /// Delivers `segments` to every callback of `category`, in order; returns how many were invoked.
    @_spi(Benchmarks)
    public func deliver(_ segments: [Segment], to category: SegmentCategory) -> Int {
        let job = DeliveryExecutor.Job(category: category, segments: segments, notifyAll: true, generation: identity.generation)
        return DeliveryExecutor.runDelivery(job, registry: registry, identity: identity, mode: .ordered).notified
    }
}
