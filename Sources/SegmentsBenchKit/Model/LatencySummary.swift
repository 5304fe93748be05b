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

    private enum CodingKeys: String, CodingKey {
        case name, definition, count, p50, p90, p99, p999, p9999, max, mean, coordinatedOmissionCorrected
        case recorded
    }

    /// One recorded bucket: a value (ns) and how many times it was recorded.
    private struct Bucket: Codable {
        var value: UInt64
        var count: UInt64
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        definition = try container.decode(String.self, forKey: .definition)
        count = try container.decode(UInt64.self, forKey: .count)
        p50 = try container.decode(UInt64.self, forKey: .p50)
        p90 = try container.decode(UInt64.self, forKey: .p90)
        p99 = try container.decode(UInt64.self, forKey: .p99)
        p999 = try container.decode(UInt64.self, forKey: .p999)
        p9999 = try container.decode(UInt64.self, forKey: .p9999)
        max = try container.decode(UInt64.self, forKey: .max)
        mean = try container.decode(Double.self, forKey: .mean)
        coordinatedOmissionCorrected = try container.decode(Bool.self, forKey: .coordinatedOmissionCorrected)
        var recorder = LatencyRecorder()
        for bucket in try container.decode([Bucket].self, forKey: .recorded) {
            recorder.record(bucket.value, count: bucket.count)
        }
        histogram = recorder.histogram
    }

    /// Encodes the summary and only the recorded buckets of the histogram (a few hundred pairs
    /// instead of the ~28,000 counters of a 60 s / 3-digit histogram).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(definition, forKey: .definition)
        try container.encode(count, forKey: .count)
        try container.encode(p50, forKey: .p50)
        try container.encode(p90, forKey: .p90)
        try container.encode(p99, forKey: .p99)
        try container.encode(p999, forKey: .p999)
        try container.encode(p9999, forKey: .p9999)
        try container.encode(max, forKey: .max)
        try container.encode(mean.isFinite ? mean : 0, forKey: .mean)
        try container.encode(coordinatedOmissionCorrected, forKey: .coordinatedOmissionCorrected)
        let buckets = histogram.recordedValues().map { Bucket(value: $0.value, count: $0.count) }
        try container.encode(buckets, forKey: .recorded)
    }

    /// The percentiles reported everywhere, in order.
    public var percentiles: [(label: String, value: UInt64)] {
        [("p50", p50), ("p90", p90), ("p99", p99), ("p99.9", p999), ("p99.99", p9999), ("max", max)]
    }
}
