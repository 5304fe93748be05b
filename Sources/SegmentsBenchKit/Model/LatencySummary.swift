import Histogram

/// A latency distribution in nanoseconds, summarized, with its full histogram for `.hgrm` output.
public struct LatencySummary: Codable, Sendable {
    /// What was measured (for example `trackEvent call`).
    public var name: String
    /// How it was measured, in one line.
    public var definition: String
    public var count: UInt64
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var p9999: UInt64
    public var max: UInt64
    public var mean: Double
    /// `true` when the values were corrected for coordinated omission (a target rate was set).
    public var coordinatedOmissionCorrected: Bool
    /// The distribution itself.
    public var histogram: Histogram<UInt64>

    /// Summarizes `histogram`.
    public init(name: String, definition: String, histogram: Histogram<UInt64>, corrected: Bool = false) {
        self.name = name
        self.definition = definition
        self.histogram = histogram
        self.coordinatedOmissionCorrected = corrected
        count = histogram.totalCount
        p50 = histogram.valueAtPercentile(50)
        p90 = histogram.valueAtPercentile(90)
        p99 = histogram.valueAtPercentile(99)
        p999 = histogram.valueAtPercentile(99.9)
        p9999 = histogram.valueAtPercentile(99.99)
        max = histogram.max
        mean = histogram.mean
    }

    /// The percentiles reported everywhere, in order.
    public var percentiles: [(label: String, value: UInt64)] {
        [("p50", p50), ("p90", p90), ("p99", p99), ("p99.9", p999), ("p99.99", p9999), ("max", max)]
    }
}
