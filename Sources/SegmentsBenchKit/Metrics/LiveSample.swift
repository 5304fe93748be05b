/// What a scenario has counted so far, as totals since it began: what ``RunMetrics`` turns into
/// counter increments, gauges and histograms. A `nil` total is one the scenario does not count
/// (its series is left as it was).
public struct LiveSample: Sendable {
    /// Events tracked.
    public var events: Int?
    /// Callback invocations.
    public var deliveries: Int?
    /// Events tracked that the backend did not store (known once the scenario drained).
    public var lostEvents: Int?
    /// Deliveries of a customer's segments after the device had left that customer.
    public var staleDeliveries: Int?
    /// Times a producer found an ingestion ring full and waited.
    public var ringStalls: Int?
    /// Latency distributions by name, folded into ``LatencyBuckets``: totals since the scenario
    /// began, not increments.
    public var latencies: [String: LatencyBucketCounts]

    /// Creates a sample.
    public init(
        events: Int? = nil, deliveries: Int? = nil, lostEvents: Int? = nil, staleDeliveries: Int? = nil, ringStalls: Int? = nil,
        latencies: [String: LatencyBucketCounts] = [:]
    ) {
        self.events = events
        self.deliveries = deliveries
        self.lostEvents = lostEvents
        self.staleDeliveries = staleDeliveries
        self.ringStalls = ringStalls
        self.latencies = latencies
    }
}
