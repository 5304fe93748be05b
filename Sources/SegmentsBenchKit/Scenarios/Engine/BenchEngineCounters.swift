import RealtimeSegments

/// What a ``BenchEngine`` counted so far, as far as the scenarios read it. An engine that keeps no
/// such count leaves it 0; the figures built on it then say so (an engine that does not count
/// `eventsUploaded` has none of its events confirmed).
public struct BenchEngineCounters: Sendable, Hashable {
    /// Events whose upload the server acknowledged.
    public var eventsUploaded = 0
    /// Upload attempts that failed (and were retried).
    public var uploadFailures = 0
    /// Uploads given up on and set aside.
    public var uploadsSetAside = 0
    /// `trackEvent` calls that found the engine's queue full and waited.
    public var producerStalls = 0
    /// Listener checks that failed.
    public var checksFailed = 0
    /// Fetch results dropped because the customer changed meanwhile.
    public var staleResultsDropped = 0
    /// Fetches made for `getSegments`.
    public var pullFetches = 0
    /// `getSegments` calls answered from the cache.
    public var pullCacheHits = 0
    /// Writes of the engine's persisted state.
    public var stateWrites = 0
    /// Bytes of those writes.
    public var stateBytesWritten = 0

    /// Every count 0; set those the engine keeps.
    public init() {}

    /// The counts of a `SegmentsClient`.
    public init(_ statistics: SegmentsStatistics) {
        eventsUploaded = statistics.eventsUploaded
        uploadFailures = statistics.uploadFailures
        uploadsSetAside = statistics.uploadsSetAside
        producerStalls = statistics.producerStalls
        checksFailed = statistics.checksFailed
        staleResultsDropped = statistics.staleResultsDropped
        pullFetches = statistics.pullFetches
        pullCacheHits = statistics.pullCacheHits
        stateWrites = statistics.stateWrites
        stateBytesWritten = statistics.stateBytesWritten
    }
}
