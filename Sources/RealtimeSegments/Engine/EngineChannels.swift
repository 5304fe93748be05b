import Dispatch
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The ways into the engine thread, shared by every producer: the ordered ingestion ring, the
/// control inbox, the reload flag, and the wake-up.
///
/// Producers do not wait for the engine unless the ring is full: they enqueue, and wake the
/// thread only if it sleeps (one atomic load on the fast path). `outstanding` counts work that has been handed to the
/// engine but not finished (control messages, tasks in flight, deliveries), so
/// ``SegmentsClient/waitUntilSettled(timeout:)`` can tell when everything settled.
@_spi(Benchmarks)
public final class EngineChannels: Sendable {
    let ring: EventRing<IngestItem>
    let wakeup = EngineWakeup()
    private let inbox = Locked<Inbox>(Inbox())
    private let inboxCount = AtomicCell<Int>(0)
    private let reloadRequested = AtomicCell<Bool>(false)
    /// Whether producers must wake the engine (asleep) or take their items out themselves (ended).
    ///
    /// In the object itself rather than in an ``AtomicCell``: every `trackEvent` reads it, and
    /// this saves that read a dependent load. It is written when the engine falls asleep or wakes,
    /// and by whoever wakes it (a control message, a producer that found the ring full or the
    /// engine asleep), never once per event in steady state, so it may share a line with the
    /// references producers read. Wakers only ever turn `asleep` into `awake` (a compare-and-swap),
    /// so a wake-up that lands after the end cannot clear `ended`.
    private let engineState = Atomic<UInt8>(EngineState.awake)
    /// The engine is in a short timed wait while events flow (``linger(nanoseconds:)``): producers
    /// do not signal it, control messages and stalled producers do.
    private let lingering = AtomicCell<Bool>(false)
    private let outstandingWork = AtomicCell<Int>(0)
    /// Times a producer found the ring full and had to wait.
    let producerStalls = AtomicCell<Int>(0)
    /// Set once, as the engine thread ends (``closeRing(logger:)``). From then on `engineState`
    /// stays `ended`, so a producer whose call was still running finds it on its way out (the load every
    /// call makes already) and takes its item out again itself, with a `Segments:` line: an event
    /// put in a ring no engine reads would otherwise be gone without a word.
    private let ended = AtomicCell<Bool>(false)
    /// The ended engine's logger, and the lock that makes whoever empties the ring after the engine
    /// ended its one consumer.
    private let lateItems = Locked<Logger?>(nil)
    /// Test hook, `nil` outside tests: called by a nudge after it found the engine not ended and
    /// before it wakes it, where a nudge races the engine's end (``closeRing(logger:)``).
    private let nudgeSawEngineRunning: (@Sendable (EngineChannels) -> Void)?
    /// The engine's place in a ``SegmentsEngineGroup``, or `nil` when it runs on a thread of its
    /// own. Set at creation: a wake-up goes to the group thread's ready list instead of `wakeup`.
    let groupMember: EngineGroupMember?
    /// The thread that empties the ring while it does: the engine's own, or its group thread (for
    /// as long as that thread runs, from before this client joins it).
    let consumerThread: ThreadMark
    /// The thread running one of the engine's uploads, while it does. The engine ends only once
    /// its upload is over, so `stop()` there must not wait for the end.
    let uploadThread = ThreadMark()
    /// Where calls made on ``consumerThread`` into a full ring wait for their slots, in the order
    /// of their claims (see ``publishElsewhere(_:_:)``). Takes a thread only when used.
    private let publishing = DispatchQueue(label: "Segments.ingest")

    /// Creates the channels with a ring of at least `ringCapacity` events.
    @_spi(Benchmarks)
    public convenience init(ringCapacity: Int) {
        self.init(ringCapacity: ringCapacity, nudgeSawEngineRunning: nil)
    }

    /// Creates the channels with a test hook at the point where a nudge races the engine's end,
    /// and the group the engine runs in (`nil`: its own thread).
    init(
        ringCapacity: Int, nudgeSawEngineRunning: (@Sendable (EngineChannels) -> Void)?,
        groupMember: EngineGroupMember? = nil
    ) {
        ring = EventRing(minimumCapacity: ringCapacity)
        self.nudgeSawEngineRunning = nudgeSawEngineRunning
        self.groupMember = groupMember
        consumerThread = groupMember?.thread.consumer ?? ThreadMark()
    }

    // MARK: Producers

    /// Enqueues an ingestion item; if the ring is full, wakes the engine and waits for room.
    /// Never drops the item.
    @inline(__always)
    func ingest(_ item: consuming IngestItem) {
        let (claimed, isFree) = ring.claimWithoutWaiting()
        guard _fastPath(isFree) else { return ingestWhenFree(claimed, item) }
        ring.fill(claimed, with: item)
        wakeIfSleeping()
    }

    /// The rest of ``ingest(_:)`` when its slot was still taken: waits for it, or, on the thread
    /// that empties the ring, leaves the wait to another thread.
    @inline(never)
    private func ingestWhenFree(_ claimed: EventRing<IngestItem>.ClaimedSlot, _ item: consuming IngestItem) {
        if consumerThread.isCurrent { return publishElsewhere(claimed, item) }
        ring.waitUntilFree(claimed) { waitForRoom(attempt: $0) }
        ring.fill(claimed, with: item)
        wakeIfSleeping()
    }

    /// Enqueues a tracked event, built in its slot: ``ingest(_:)`` for `trackEvent`, whose
    /// `IngestItem` would otherwise be assembled on the stack and copied into the slot (16-byte
    /// loads of 8-byte stores just made, where `perf annotate` put most of the copy's samples).
    /// Never drops the event.
    ///
    /// The parts must arrive owned, retained (if at all) before an opaque call: the slot is filled
    /// and published inline, and the retain of a copy made in inlined code could be moved below
    /// the publication (see ``EventRing``'s `copy(_:into:)`). Its one caller is the public
    /// ``SegmentsClient/trackEvent(eventType:properties:timestamp:)``, which takes them
    /// `consuming` and which nothing in this module calls, so its caller made every retain.
    @inline(__always)
    func ingestEvent(eventType: consuming String, properties: consuming [String: JSONValue], timestamp: Double) {
        let (claimed, isFree) = ring.claimWithoutWaiting()
        guard _fastPath(isFree) else {
            ingestEventWhenFree(claimed, eventType: eventType, properties: properties, timestamp: timestamp)
            return
        }
        publishEvent(claimed, eventType: eventType, properties: properties, timestamp: timestamp)
    }

    /// The rest of ``ingestEvent(eventType:properties:timestamp:)`` when its slot was still taken:
    /// waits for it, then builds and publishes the event.
    ///
    /// Out of line, and the whole rest of the call, so that the call's fast path keeps no value
    /// across a call (a wait that returned into it made every call save registers for it). Its
    /// arguments arrive owned, so every retain of them was done before the publication.
    @inline(never)
    private func ingestEventWhenFree(
        _ claimed: EventRing<IngestItem>.ClaimedSlot, eventType: consuming String,
        properties: consuming [String: JSONValue], timestamp: Double
    ) {
        if consumerThread.isCurrent {
            return publishElsewhere(claimed, .event(eventType: eventType, properties: properties, timestamp: timestamp))
        }
        ring.waitUntilFree(claimed) { waitForRoom(attempt: $0) }
        publishEvent(claimed, eventType: eventType, properties: properties, timestamp: timestamp)
    }

    /// Publishes `item` in its claimed slot from ``publishing``'s thread once the slot is free, and
    /// returns at once: for a call on the thread that empties the ring, which would wait forever
    /// for room only it can make (app code the engine runs: a never-blocking transport's step, a
    /// log handler, tracking into a client that thread serves). The item keeps its place in the
    /// order, since the position is claimed. Counted as outstanding work until published.
    private func publishElsewhere(_ claimed: EventRing<IngestItem>.ClaimedSlot, _ item: consuming IngestItem) {
        beginWork()
        let pending = PendingPublication(claimed: claimed, item: item)
        publishing.async {
            self.ring.waitUntilFree(pending.claimed) { self.waitForRoom(attempt: $0) }
            self.ring.fill(pending.claimed, with: pending.item)
            self.wakeIfSleeping()
            self.endWork()
        }
    }

    /// Builds the event in its claimed, free slot, publishes it and wakes a sleeping engine: the
    /// end of both ingest paths. Inlined into each, so the fast path stays free of calls.
    @inline(__always)
    private func publishEvent(
        _ claimed: EventRing<IngestItem>.ClaimedSlot, eventType: consuming String,
        properties: consuming [String: JSONValue], timestamp: Double
    ) {
        IngestItem.initializeEvent(
            at: claimed.element, eventType: eventType, properties: properties, timestamp: timestamp)
        ring.publish(claimed)
        wakeIfSleeping()
    }

    /// What a producer does before each of its few looks at a slot still taken, and once more
    /// before it parks (see ``EventRing/waitUntilFree(_:whileFull:)``): wake the engine, and
    /// yield the core to it while spinning. The engine wakes parked producers once per batch,
    /// when it has freed their slots.
    ///
    /// Callers wrap it in a closure literal: passed as `waitForRoom`, the method reference retains
    /// and releases the channels on every enqueue.
    private func waitForRoom(attempt: Int) {
        if attempt == 0 { producerStalls.atomic.wrappingAdd(1, ordering: .relaxed) }
        // After the engine ended, the slot is freed by whoever takes out the items ahead of it
        // (`closeRing`, or the calls that published them); taking them here could wait on the
        // lock `closeRing` holds while it waits for this very call to publish.
        nudgeEngine()
        if attempt < EventRing<IngestItem>.spinsBeforeParking { sched_yield() }
    }

    /// Sends a control message (counted as outstanding until processed). After the engine thread
    /// has ended (``closeInbox()``) the message is refused instead: a waiting `getSegments` gets
    /// ``SegmentsError/stopped`` on a background thread, a barrier is signalled, a step of a
    /// fetch or link (``EngineTaskExecutor``) runs on a background thread. A caller that
    /// checked "started" just before `stop()` ran to the end would otherwise wait forever.
    func post(_ message: ControlMessage) {
        beginWork()
        let accepted = inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.messages.append(message)
            return true
        }
        guard accepted else {
            refuse(message)
            return
        }
        // Sequentially consistent: the sender's half of the handshake with `sleep` and `linger`,
        // which look at the count after announcing themselves (a release would not order that).
        inboxCount.atomic.wrappingAdd(1, ordering: .sequentiallyConsistent)
        nudgeEngine()
    }

    /// Closes the inbox as the engine thread ends, and refuses what is still in it (see
    /// ``post(_:)``): messages posted between the engine's last look and its end.
    func closeInbox() {
        var left: [ControlMessage] = []
        inbox.withLock { inbox in
            inbox.closed = true
            inboxCount.atomic.wrappingSubtract(inbox.messages.count, ordering: .releasing)
            swap(&inbox.messages, &left)
        }
        for message in left { refuse(message) }
    }

    /// Runs `work` on a background thread, counted as outstanding work until it returns: how
    /// `getSegments` completions reach app code, never on the caller's thread nor the engine's.
    func runInBackground(_ work: @escaping @Sendable () -> Void) {
        beginWork()
        DispatchQueue.global(qos: .utility).async {
            work()
            self.endWork()
        }
    }

    /// Answers a message no engine will handle, and ends the work ``post(_:)`` counted for it.
    private func refuse(_ message: ControlMessage) {
        switch message {
        case .getSegments(_, _, let completion):
            runInBackground { completion(.failure(.stopped)) }
            endWork()
        case .journalFlush(_, let completion):
            completion(.failure(.stopped))
            endWork()
        case .barrier(let semaphore, _):
            endWork()
            semaphore.signal()
        case .runJob(let job, let executor):
            // The engine has ended: the step runs elsewhere, so the call (and its `endWork`) finishes.
            runInBackground { executor.runStepOutsideTurn(job) }
            endWork()
        case .flush, .stop, .fetchCompleted, .uploadCompleted:
            endWork()
        }
    }

    /// Asks for a listener check (lock-free, allocation-free).
    ///
    /// What the caller published before (a registration) is seen by the check this request
    /// causes, even when the flag is already set and this call sets nothing: the look at the flag
    /// and the engine's take (``takeReloadRequest()``) are sequentially consistent, as are the
    /// registry's publication and the engine's read of it, so the take that clears the flag this
    /// call saw set comes after the publication. Plain loads on x86.
    @inline(__always)
    @_spi(Benchmarks)
    public func requestReload() {
        if !reloadRequested.atomic.load(ordering: .sequentiallyConsistent) {
            reloadRequested.atomic.store(true, ordering: .sequentiallyConsistent)
        }
        wakeIfSleeping()
    }

    @inline(__always)
    private func wakeIfSleeping() {
        if _slowPath(engineState.load(ordering: .sequentiallyConsistent) != EngineState.awake) { wakeEngine() }
    }

    /// Out of line: the first event after a pause needs it, the rest only test the flag, and
    /// inlined it made `trackEvent` save registers for its call on every event.
    @inline(never)
    private func wakeEngine() {
        if ended.atomic.load(ordering: .acquiring) { return takeLateItems() }
        if wakeIfAsleep() { signalEngine() }
    }

    /// Makes the thread that runs the engine take its next turn soon: signals its own thread's
    /// `wakeup`, or puts a grouped engine on its group thread's ready list (lock-free and
    /// allocation-free, see ``EngineGroupMember/wake()``).
    @inline(__always)
    private func signalEngine() {
        if let groupMember { groupMember.wake() } else { wakeup.signal() }
    }

    /// Turns `asleep` into `awake`; `true` if it did (the caller then signals the engine).
    @inline(__always)
    private func wakeIfAsleep() -> Bool {
        engineState.compareExchange(expected: EngineState.asleep, desired: EngineState.awake, ordering: .sequentiallyConsistent).exchanged
    }

    /// Wakes the engine from a sleep or a linger: for work that should not wait for the next look
    /// at the ring (control messages, a full ring). A signal that lands after the linger ended
    /// only makes the next wait return at once, which the loop tolerates.
    private func nudgeEngine() {
        // After the end there is no engine to wake. An end that lands after this look is safe
        // too: the end's `ended` state is never turned into `awake`.
        guard !ended.atomic.load(ordering: .acquiring) else { return }
        nudgeSawEngineRunning?(self)
        if wakeIfAsleep() || lingering.atomic.load(ordering: .sequentiallyConsistent) {
            signalEngine()
        }
    }

    // MARK: After the engine

    /// Called by the engine thread as it ends, after its last look at the ring: takes out what is
    /// left, waiting for calls that claimed a slot before this to publish it, and makes calls
    /// still running take out their own items (see `ended`). Each take that finds items logs
    /// `Segments: N events or customer changes tracked while stop() ran were dropped`.
    func closeRing(logger: Logger) {
        lateItems.withLock { $0 = logger }
        ended.atomic.store(true, ordering: .releasing)
        // Dekker's handshake with the producers, as in `sleep(until:clock:)`: a call that claimed
        // before the look at the claims below is waited for here; one that claimed after it sees
        // `ended` when it looks on its way out, and takes its item out itself.
        engineState.store(EngineState.ended, ordering: .sequentiallyConsistent)
        let dropped = lateItems.withLock { _ in
            let claimed = ring.claimedPositions
            var dropped = 0
            while claimed &- ring.nextDequeuePosition > 0 {
                if ring.dequeue() != nil {
                    dropped += 1
                } else {
                    // The producer of the next slot may be parked, waiting for a slot freed here.
                    ring.wakeParkedProducers()
                    sched_yield()
                }
            }
            return dropped + takePublished()
        }
        // Outside the lock: the logger's handler is the app's code.
        if dropped > 0 { Self.logDropped(dropped, logger) }
    }

    /// Takes out the items published so far, in order, after the engine ended; a slot claimed but
    /// not yet published stops it (its producer takes the rest when it has published).
    @inline(never)
    private func takeLateItems() {
        // The logger is set before `ended`, so present whenever `ended` was seen.
        let (dropped, logger) = lateItems.withLock { logger in (takePublished(), logger) }
        if dropped > 0, let logger { Self.logDropped(dropped, logger) }
    }

    /// Dequeues every item published in order from the consumer's position. Under `lateItems`.
    private func takePublished() -> Int {
        var taken = 0
        while ring.dequeue() != nil { taken += 1 }
        // Calls still running may be parked on the slots just freed: they take their own out.
        ring.wakeParkedProducers()
        return taken
    }

    private static func logDropped(_ count: Int, _ logger: Logger) {
        logger.error("Segments: \(count) events or customer changes tracked while stop() ran were dropped")
    }

    // MARK: Outstanding work

    func beginWork() { outstandingWork.atomic.wrappingAdd(1, ordering: .acquiringAndReleasing) }
    func endWork() { outstandingWork.atomic.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
    var hasOutstandingWork: Bool { outstandingWork.atomic.load(ordering: .acquiring) != 0 }

    /// Control messages posted and not yet taken by the engine (a snapshot, for tests).
    var pendingMessageCount: Int { inboxCount.atomic.load(ordering: .acquiring) }

    // MARK: Engine thread

    /// Moves every control message into `messages`, which must be empty (engine thread).
    ///
    /// The inbox and the engine's array trade buffers, and the engine empties its array keeping
    /// the capacity before the next call, so in steady state taking messages allocates nothing.
    /// Returning the inbox's array and then emptying it, as before, copied its buffer every time:
    /// one allocation between a fetch's return and the check's handling.
    func takeMessages(into messages: inout [ControlMessage]) {
        precondition(messages.isEmpty, "the engine handles every taken message before taking more")
        guard inboxCount.atomic.load(ordering: .acquiring) > 0 else { return }
        inbox.withLock { inbox in
            inboxCount.atomic.wrappingSubtract(inbox.messages.count, ordering: .releasing)
            swap(&inbox.messages, &messages)
        }
    }

    /// Takes the reload flag (engine thread).
    @_spi(Benchmarks)
    public func takeReloadRequest() -> Bool {
        reloadRequested.atomic.load(ordering: .relaxed) && reloadRequested.atomic.exchange(false, ordering: .sequentiallyConsistent)
    }

    /// Waits up to `nanoseconds` of real time without asking producers to wake the engine.
    ///
    /// While events keep coming, the engine looks at the ring on this period instead of sleeping
    /// until signalled: a signal is a system call on the producer's thread, which would cost every
    /// `trackEvent` far more than claiming a slot (docs/performance-notes.md has the measurement).
    /// Control messages and stalled producers still end the wait at once, and it does not begin
    /// while a producer is parked on the full ring.
    ///
    /// Real time, not the configured clock: this is CPU hand-off, not timed behaviour, and a manual
    /// clock would never end it.
    func linger(nanoseconds: UInt64) {
        lingering.atomic.store(true, ordering: .sequentiallyConsistent)
        // Dekker-style re-check against `nudgeEngine`: a message posted, or a producer parked on
        // the full ring, before `lingering` was visible is seen here.
        if inboxCount.atomic.load(ordering: .sequentiallyConsistent) == 0 {
            if !ring.hasParkedProducers {
                wakeup.wait(untilUptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + nanoseconds)
            } else {
                // Producers wait for slots the next turn frees, and the turn just run stopped at a
                // slot claimed but not yet written: its writer may be the thread this core is
                // taken from. Looking again at once, turn after turn, only keeps it waiting.
                sched_yield()
            }
        }
        lingering.atomic.store(false, ordering: .relaxed)
    }

    /// Sleeps until `deadline`, new input, or a clock advance. Returns at once if input is waiting.
    func sleep(until deadline: SegmentsInstant?, clock: any SegmentsClock) {
        engineState.store(EngineState.asleep, ordering: .sequentiallyConsistent)
        // Dekker-style re-check: a producer that enqueued before seeing `asleep` is seen here.
        if inboxCount.atomic.load(ordering: .sequentiallyConsistent) > 0
            || reloadRequested.atomic.load(ordering: .sequentiallyConsistent)
        {
            engineState.store(EngineState.awake, ordering: .relaxed)
            return
        }
        if !ring.isEmpty {
            engineState.store(EngineState.awake, ordering: .relaxed)
            // A slot is claimed. If the turn before found it unwritten, its writer may be waiting
            // for this core (see `linger`); written, the next turn takes it after the yield.
            sched_yield()
            return
        }
        wakeup.wait(until: deadline, on: clock)
        engineState.store(EngineState.awake, ordering: .relaxed)
    }

    // MARK: Group thread

    /// The first half of ``linger(nanoseconds:)`` for an engine in a ``SegmentsEngineGroup``:
    /// marks it lingering, so control messages and stalled producers wake it, and re-checks the
    /// inbox as `linger` does. Returns `false`, with the mark taken back, if a message waits (the
    /// group thread runs the next turn at once); `true` if the group thread may look at the ring
    /// again later, calling ``endGroupLinger()`` before that turn.
    func beginGroupLinger() -> Bool {
        lingering.atomic.store(true, ordering: .sequentiallyConsistent)
        // The same Dekker-style re-check as `linger`'s, against `nudgeEngine`.
        if inboxCount.atomic.load(ordering: .sequentiallyConsistent) == 0 && !ring.hasParkedProducers { return true }
        lingering.atomic.store(false, ordering: .relaxed)
        return false
    }

    /// Ends a linger begun by ``beginGroupLinger()`` (group thread, before the engine's next turn).
    func endGroupLinger() {
        lingering.atomic.store(false, ordering: .relaxed)
    }

    /// The first half of ``sleep(until:clock:)`` for an engine in a ``SegmentsEngineGroup``:
    /// publishes `asleep` and re-checks the ring, the inbox and the reload flag exactly as `sleep`
    /// does. Returns `false`, awake again, if input waits (the group thread runs the next turn at
    /// once); `true` if the engine sleeps: a producer that finds it asleep puts it on the group
    /// thread's ready list, and the group thread calls ``endGroupSleep()`` before its next turn.
    func beginGroupSleep() -> Bool {
        engineState.store(EngineState.asleep, ordering: .sequentiallyConsistent)
        // Dekker-style re-check: a producer that enqueued before seeing `asleep` is seen here; one
        // that enqueues after it sees `asleep` and wakes the engine through its group.
        if !ring.isEmpty || inboxCount.atomic.load(ordering: .sequentiallyConsistent) > 0
            || reloadRequested.atomic.load(ordering: .sequentiallyConsistent)
        {
            engineState.store(EngineState.awake, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Ends a sleep begun by ``beginGroupSleep()`` (group thread, before the engine's next turn),
    /// whether a producer woke it (it found `awake` already) or its deadline passed.
    func endGroupSleep() {
        engineState.store(EngineState.awake, ordering: .relaxed)
    }
}

/// What producers find when they look whether to wake the engine (``EngineChannels``'s
/// `engineState`). Raw bytes rather than an `AtomicRepresentable` enum, whose every load would
/// check the byte is a valid case before `trackEvent` compares it.
private enum EngineState {
    /// Running: producers leave it alone.
    static var awake: UInt8 { 0 }
    /// Sleeping or about to (``EngineChannels/sleep(until:clock:)``): the first producer to see it
    /// wakes it.
    static var asleep: UInt8 { 1 }
    /// Ended (``EngineChannels/closeRing(logger:)``), for good: producers take their items out.
    static var ended: UInt8 { 2 }
}

/// The control inbox: messages for the engine, and whether the engine has ended.
private struct Inbox {
    var messages: [ControlMessage] = []
    /// Set once, by the engine thread as it ends; from then on messages are refused.
    var closed = false
}

/// An item waiting to be published in its claimed slot by another thread than its caller's.
private struct PendingPublication: @unchecked Sendable {
    // @unchecked Sendable: the slot's pointer is not Sendable, but the claim gives the position to
    // this one publication alone until it publishes (``EventRing``'s ownership rule), and the ring,
    // which owns the memory, lives as long as the channels the publishing closure holds.
    let claimed: EventRing<IngestItem>.ClaimedSlot
    let item: IngestItem
}
