import Foundation
import Synchronization
import RealtimeSegments

/// Wraps the engine's transport to time what crosses it: when each fetch starts and returns, how
/// long it took, and when each event upload succeeded. Off the per-event path (one lock per call).
public final class MeasuringTransport: SegmentsTransport {
    private struct State {
        var fetchRoundTrip = LatencyRecorder()
        var fetchStarts = 0
        var triggerToFetch = LatencyRecorder()
        var lastUploadSuccess: UInt64?
    }

    private let inner: any SegmentsTransport
    private let state = LockedBox(State())
    /// See ``lastFetchReturn``: an atomic, so that storing it costs the measured span one store.
    private let lastReturn = Atomic<UInt64>(0)
    private let inFlight = Atomic<Int>(0)
    /// The configured debounce, in ns: trigger → fetch start includes it.
    let debounceNanoseconds: UInt64

    /// Whether every fetched category gets a marker segment naming the cookie it was fetched for.
    let markResponsesWithCookie: Bool

    /// The segmentation id of marker segments (their `id` is the cookie).
    public static let markerSegmentationId = "customer"

    /// Wraps `inner`. With `markResponsesWithCookie`, every response names the customer it was
    /// fetched for (a segment `{id: cookie, segmentation_id: "customer"}` in each of discovery,
    /// content and merchandising), so a callback can tell whose data it received.
    public init(_ inner: any SegmentsTransport, debounce: Duration, markResponsesWithCookie: Bool = false) {
        self.inner = inner
        self.markResponsesWithCookie = markResponsesWithCookie
        debounceNanoseconds = debounce.wholeNanoseconds
    }

    public func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.trackEvents(events, context: context)
        let now = monotonicNanoseconds()
        state.withLock { state in
            if state.lastUploadSuccess == nil { state.lastUploadSuccess = now }
        }
    }

    public func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.identifyCustomer(update, context: context)
    }

    public func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        try await inner.linkCustomerIds(cookie: cookie, externalIds: externalIds, context: context)
    }

    /// The wrapped transport's promise: the measuring adds only short locks.
    public var neverBlocks: Bool { inner.neverBlocks }

    public func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        let start = monotonicNanoseconds()
        state.withLock { state in
            state.fetchStarts += 1
            // Trigger → fetch start: from the first successful upload since the previous fetch.
            if let trigger = state.lastUploadSuccess {
                state.triggerToFetch.record(start &- trigger)
                state.lastUploadSuccess = nil
            }
        }
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        var response = try await inner.fetchSegments(cookie: cookie, context: context)
        let end = monotonicNanoseconds()
        state.withLock { state in
            state.fetchRoundTrip.record(end - start)
        }
        if markResponsesWithCookie {
            let marker = Segment(id: cookie, segmentationId: Self.markerSegmentationId)
            for category in [SegmentCategory.discovery, .content, .merchandising] {
                response.categories[category, default: []].insert(marker, at: 0)
            }
        }
        // Read last, after the bookkeeping above: the time from here on is the engine's.
        lastReturn.store(monotonicNanoseconds(), ordering: .releasing)
        return response
    }

    /// Fetch round trips so far.
    public var fetchRoundTrip: LatencyRecorder { state.withLock { $0.fetchRoundTrip } }
    /// Trigger (upload success) → fetch start, the debounce included.
    public var triggerToFetch: LatencyRecorder { state.withLock { $0.triggerToFetch } }
    /// Fetches started and not yet returned.
    public var fetchesInFlight: Int { inFlight.load(ordering: .relaxed) }
    /// Whether an upload succeeded after the latest fetch started: a check is owed for it.
    public var uploadAwaitsACheck: Bool { state.withLock { $0.lastUploadSuccess != nil } }
    /// Number of fetches started.
    public var fetchCount: Int { state.withLock { $0.fetchStarts } }
    /// When the latest fetch handed its response back to the engine (monotonic ns), after this
    /// transport's own bookkeeping; `nil` before the first.
    public var lastFetchReturn: UInt64? {
        let value = lastReturn.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
}

/// A value behind an `NSLock` (TSan-visible), for the harness's bookkeeping.
public final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only accessed inside `withLock`, under `lock`, so no two
    // threads touch it at once; and `Value: Sendable`, so what one thread puts in and another
    // takes out may cross threads.
    private let lock = NSLock()
    private var value: Value

    /// Creates a box.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension MeasuringTransport: QualifiedSegmentsTransport {
    /// Forwards to the wrapped transport (unmeasured); fails like the engine does when it cannot
    /// answer qualified segments.
    public func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError)
        -> [String]
    {
        guard let inner = inner as? any QualifiedSegmentsTransport else {
            throw .fetchSegmentsFailed("transport does not support qualified segments")
        }
        return try await inner.fetchQualifiedSegments(query, apiKey: apiKey)
    }
}
