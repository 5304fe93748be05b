import Atomics
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
/// Producers never block on the engine: they enqueue, and wake the thread only if it sleeps
/// (one atomic load on the fast path). `outstanding` counts work that has been handed to the
/// engine but not finished (control messages, tasks in flight, deliveries), so
/// ``SegmentsClient/waitUntilIdle(timeout:)`` can tell when everything settled.
@_spi(Benchmarks)
public final class EngineChannels: Sendable {
    let ring: EventRing<IngestItem>
    let wakeup = EngineWakeup()
    private let inbox = Locked<[ControlMessage]>([])
    private let inboxCount = ManagedAtomic<Int>(0)
    private let reloadRequested = ManagedAtomic<Bool>(false)
    private let sleeping = ManagedAtomic<Bool>(false)
    private let outstandingWork = ManagedAtomic<Int>(0)
    /// Times a producer found the ring full and had to wait.
    let producerStalls = ManagedAtomic<Int>(0)

    @_spi(Benchmarks)
    public init(ringCapacity: Int) {
        ring = EventRing(minimumCapacity: ringCapacity)
    }

    // MARK: Producers

    /// Enqueues an ingestion item; if the ring is full, wakes the engine and waits for room.
    /// Never drops the item.
    @inline(__always)
    func ingest(_ item: IngestItem) {
        if ring.tryEnqueue(item) {
            wakeIfSleeping()
            return
        }
        producerStalls.wrappingIncrement(ordering: .relaxed)
        var attempt = 0
        repeat {
            wakeEngine()
            // Back off: yield the core to the engine thread first, then sleep briefly so that
            // many stalled producers do not starve it on a small machine.
            if attempt < 32 { sched_yield() } else { usleep(50) }
            attempt += 1
        } while !ring.tryEnqueue(item)
        wakeIfSleeping()
    }

    /// Sends a control message (counted as outstanding until processed).
    func post(_ message: ControlMessage) {
        beginWork()
        inbox.withLock { $0.append(message) }
        inboxCount.wrappingIncrement(ordering: .releasing)
        wakeEngine()
    }

    /// Asks for a listener check (lock-free, allocation-free).
    @inline(__always)
    @_spi(Benchmarks)
    public func requestReload() {
        if !reloadRequested.load(ordering: .relaxed) {
            reloadRequested.store(true, ordering: .sequentiallyConsistent)
        }
        wakeIfSleeping()
    }

    @inline(__always)
    private func wakeIfSleeping() {
        if sleeping.load(ordering: .sequentiallyConsistent) { wakeEngine() }
    }

    private func wakeEngine() {
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) { wakeup.signal() }
    }

    // MARK: Outstanding work

    func beginWork() { outstandingWork.wrappingIncrement(ordering: .acquiringAndReleasing) }
    func endWork() { outstandingWork.wrappingDecrement(ordering: .acquiringAndReleasing) }
    var hasOutstandingWork: Bool { outstandingWork.load(ordering: .acquiring) != 0 }

    // MARK: Engine thread

    /// Takes every control message (engine thread).
    func takeMessages() -> [ControlMessage] {
        guard inboxCount.load(ordering: .acquiring) > 0 else { return [] }
        return inbox.withLock { messages in
            inboxCount.wrappingDecrement(by: messages.count, ordering: .releasing)
            defer { messages.removeAll(keepingCapacity: true) }
            return messages
        }
    }

    /// Takes the reload flag (engine thread).
    @_spi(Benchmarks)
    public func takeReloadRequest() -> Bool {
        reloadRequested.load(ordering: .relaxed) && reloadRequested.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Sleeps until `deadline`, new input, or a clock advance. Returns at once if input is waiting.
    func sleep(until deadline: SegmentsInstant?, clock: any SegmentsClock) {
        sleeping.store(true, ordering: .sequentiallyConsistent)
        // Dekker-style re-check: a producer that enqueued before seeing `sleeping` is seen here.
        if !ring.isEmpty || inboxCount.load(ordering: .sequentiallyConsistent) > 0
            || reloadRequested.load(ordering: .sequentiallyConsistent)
        {
            sleeping.store(false, ordering: .relaxed)
            return
        }
        clock.sleep(until: deadline, wakeup: wakeup)
        sleeping.store(false, ordering: .relaxed)
    }
}
