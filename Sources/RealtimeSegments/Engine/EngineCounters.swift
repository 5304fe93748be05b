import Atomics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Counters the engine keeps for the harness and for ``SegmentsClient/statistics``, and the
/// harness's ``CheckTimeline`` if it set one. Relaxed atomic increments, off the per-event path.
final class EngineCounters: Sendable {
    let checksStarted = ManagedAtomic<Int>(0)
    let checksSucceeded = ManagedAtomic<Int>(0)
    let checksFailed = ManagedAtomic<Int>(0)
    let staleResultsDropped = ManagedAtomic<Int>(0)
    let staleDeliveriesDropped = ManagedAtomic<Int>(0)
    let pullFetches = ManagedAtomic<Int>(0)
    let pullCacheHits = ManagedAtomic<Int>(0)
    let linkCalls = ManagedAtomic<Int>(0)
    let callbacksNotified = ManagedAtomic<Int>(0)
    /// Deliveries handed to a delivery thread still in its spin window, and the time spent spinning.
    let deliveriesHandedOff = ManagedAtomic<Int>(0)
    let deliverySpinNanoseconds = ManagedAtomic<Int>(0)
    let eventsUploaded = ManagedAtomic<Int>(0)
    let uploadFailures = ManagedAtomic<Int>(0)
    let uploadsSetAside = ManagedAtomic<Int>(0)
    let stateWrites = ManagedAtomic<Int>(0)
    let stateBytesWritten = ManagedAtomic<Int>(0)
    /// Event journal: bytes appended to its segment files, `write` calls (one per group commit),
    /// `fsync` calls (of files and of the directory) and items written.
    let journalBytesWritten = ManagedAtomic<Int>(0)
    let journalWrites = ManagedAtomic<Int>(0)
    let journalFsyncs = ManagedAtomic<Int>(0)
    let journalItemsWritten = ManagedAtomic<Int>(0)
    /// Where the engine thread and the delivery threads stamp the stages of a check's notification
    /// (``SegmentsConfiguration/checkTimeline``); `nil` unless `segments-bench` asks.
    let checkTimeline: CheckTimeline?

    init(checkTimeline: CheckTimeline? = nil) {
        self.checkTimeline = checkTimeline
    }

    /// The CPU-time clock of the engine's own thread while it runs (``engineThreadStarted()`` to
    /// ``engineThreadEnding()``), else ``noThreadClock``. Linux only: elsewhere it stays unset.
    private let engineThreadClock = ManagedAtomic<Int>(EngineCounters.noThreadClock)
    private static let noThreadClock = Int.min

    /// Records the calling thread, the engine's own, as the one ``engineThreadCPUNanoseconds``
    /// reads. Costs the engine nothing afterwards: the kernel keeps the thread's CPU time, and
    /// whoever asks reads it.
    func engineThreadStarted() {
        #if os(Linux)
        var clock = clockid_t()
        if pthread_getcpuclockid(pthread_self(), &clock) == 0 {
            engineThreadClock.store(Int(clock), ordering: .releasing)
        }
        #endif
    }

    /// Forgets the engine thread as it ends (its clock would name whichever thread gets its id next).
    func engineThreadEnding() {
        engineThreadClock.store(Self.noThreadClock, ordering: .releasing)
    }

    /// CPU time the engine's own thread has used so far, in nanoseconds; `nil` before it started
    /// and after it ended, for an engine in a ``SegmentsEngineGroup`` (whose thread runs others
    /// too), and off Linux. Any thread.
    var engineThreadCPUNanoseconds: Int? {
        #if os(Linux)
        let clock = engineThreadClock.load(ordering: .acquiring)
        guard clock != Self.noThreadClock else { return nil }
        var time = timespec()
        guard clock_gettime(clockid_t(clock), &time) == 0 else { return nil }
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
        #else
        return nil
        #endif
    }

    func snapshot(producerStalls: Int) -> SegmentsStatistics {
        SegmentsStatistics(
            checksStarted: checksStarted.load(ordering: .relaxed),
            checksSucceeded: checksSucceeded.load(ordering: .relaxed),
            checksFailed: checksFailed.load(ordering: .relaxed),
            staleResultsDropped: staleResultsDropped.load(ordering: .relaxed),
            staleDeliveriesDropped: staleDeliveriesDropped.load(ordering: .relaxed),
            pullFetches: pullFetches.load(ordering: .relaxed),
            pullCacheHits: pullCacheHits.load(ordering: .relaxed),
            linkCalls: linkCalls.load(ordering: .relaxed),
            callbacksNotified: callbacksNotified.load(ordering: .relaxed),
            deliveriesHandedOff: deliveriesHandedOff.load(ordering: .relaxed),
            deliverySpinNanoseconds: deliverySpinNanoseconds.load(ordering: .relaxed),
            eventsUploaded: eventsUploaded.load(ordering: .relaxed),
            uploadFailures: uploadFailures.load(ordering: .relaxed),
            uploadsSetAside: uploadsSetAside.load(ordering: .relaxed),
            stateWrites: stateWrites.load(ordering: .relaxed),
            stateBytesWritten: stateBytesWritten.load(ordering: .relaxed),
            producerStalls: producerStalls
        )
    }
}

/// What a client has done so far; read with ``SegmentsClient/statistics``.
public struct SegmentsStatistics: Sendable, Hashable, Codable {
    /// Listener checks started (one fetch each, after link-ids if needed).
    public var checksStarted: Int
    /// Listener checks whose data was applied.
    public var checksSucceeded: Int
    /// Listener checks that failed (link or fetch error).
    public var checksFailed: Int
    /// Fetch results dropped because the customer changed while they were in flight.
    public var staleResultsDropped: Int
    /// Category deliveries cut short because the customer changed before they ran.
    public var staleDeliveriesDropped: Int
    /// Fetches made for `getSegments`.
    public var pullFetches: Int
    /// `getSegments` calls served from the cache.
    public var pullCacheHits: Int
    /// Link-ids calls made.
    public var linkCalls: Int
    /// Callback invocations.
    public var callbacksNotified: Int
    /// Category deliveries that started on a delivery thread still in its spin window
    /// (``SegmentsConfiguration/deliverySpinWindow``), without a thread wake-up.
    public var deliveriesHandedOff: Int
    /// Time delivery threads spent spinning for a next delivery, in nanoseconds: the CPU cost of
    /// ``SegmentsConfiguration/deliverySpinWindow`` (0 without one).
    public var deliverySpinNanoseconds: Int
    /// Events uploaded successfully.
    public var eventsUploaded: Int
    /// Upload attempts that failed (retried, split or set aside, see ``uploadsSetAside``).
    public var uploadFailures: Int
    /// Events and customer updates the server refused for good: set aside in the state directory's
    /// dead-letter file (or, without one, discarded), each with a `Segments:` error line.
    public var uploadsSetAside: Int
    /// Times the state file was written.
    public var stateWrites: Int
    /// Bytes written to the state file, all writes together.
    public var stateBytesWritten: Int
    /// Times `trackEvent`, `identifyCustomer` or `anonymize` found the ingestion ring full and waited.
    public var producerStalls: Int
}
