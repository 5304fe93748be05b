import Histogram

/// A latency distribution in nanoseconds, summarized, with its full histogram for `.hgrm` output
/// and, when it was recorded by interval, its histograms per interval for `.hlog` output.
///
/// A percentile is reported only when the distribution has enough samples to hold it: the
/// `p`th percentile needs at least `1 / (1 - p/100)` samples (``minimumCount(forPercentile:)``:
/// 10 for p90, 100 for p99, 1,000 for p99.9, 10,000 for p99.99). With fewer, the value would be
/// the maximum under another name, so it is `nil` here, absent from JSON and shown as `—` next to
/// the count in reports. p50 and max are reported from one sample up.
public struct LatencySummary: Codable, Sendable {
    /// What was measured (for example `trackEvent call`).
    public var name: String
    /// How it was measured, in one line.
    public var definition: String
    public var count: UInt64
    public var p50: UInt64
    /// `nil` below 10 samples.
    public var p90: UInt64?
    /// `nil` below 100 samples.
    public var p99: UInt64?
    /// `nil` below 1,000 samples.
    public var p999: UInt64?
    /// `nil` below 10,000 samples.
    public var p9999: UInt64?
    public var max: UInt64
    public var mean: Double
    /// `true` when the values were corrected for coordinated omission (a target rate was set).
    public var coordinatedOmissionCorrected: Bool
    /// The distribution itself.
    public var histogram: Histogram<UInt64>
    /// The same values per interval of time, one entry per host that recorded them (a merged
    /// report has several); empty when the latency was not recorded by interval.
    public var intervals: [LatencyIntervals]

    /// The fewest samples that support the `percentile`th percentile (0 < percentile < 100):
    /// `ceil(1 / (1 - percentile / 100))`, so that at least one sample lies above it.
    public static func minimumCount(forPercentile percentile: Double) -> UInt64 {
        guard percentile > 0, percentile < 100 else { return 1 }
        // Rounded to a millionth first: 100 / (100 - 99.9) is 1000.0000000000568 in binary.
        let needed = (100 / (100 - percentile) * 1e6).rounded() / 1e6
        return UInt64(needed.rounded(.up))
    }

    /// Summarizes `histogram`.
    public init(
        name: String, definition: String, histogram: Histogram<UInt64>, corrected: Bool = false, intervals: [LatencyIntervals] = []
    ) {
        self.name = name
        self.definition = definition
        self.histogram = histogram
        self.intervals = intervals
        self.coordinatedOmissionCorrected = corrected
        let count = histogram.totalCount
        self.count = count
        func supported(_ percentile: Double) -> UInt64? {
            count >= Self.minimumCount(forPercentile: percentile) ? histogram.valueAtPercentile(percentile) : nil
        }
        p50 = histogram.valueAtPercentile(50)
        p90 = supported(90)
        p99 = supported(99)
        p999 = supported(99.9)
        p9999 = supported(99.99)
        max = histogram.max
        mean = histogram.mean
    }

    /// Whether samples of these values and counts fit a 64-bit histogram: their count, and the sum
    /// of each value's bucket top times its count, stay below 2⁶⁴. The histogram's iteration adds
    /// up that sum in a 64-bit integer (a bucket's top is at most 0.1% above its values, with three
    /// significant digits).
    static func fitsAHistogram(_ samples: [(value: UInt64, count: UInt64)]) -> Bool {
        let limit = Double(UInt64.max) / 1.01
        var count = 0.0
        var sum = 0.0
        for sample in samples {
            count += Double(sample.count)
            sum += Double(sample.value) * 1.001 * Double(sample.count)
        }
        return count < limit && sum < limit
    }

    private enum CodingKeys: String, CodingKey {
        case name, definition, count, p50, p90, p99, p999, p9999, max, mean, coordinatedOmissionCorrected
        case recorded, intervals
    }

    /// One recorded bucket: a value (ns) and how many times it was recorded.
    private struct Bucket: Codable {
        var value: UInt64
        var count: UInt64
    }

    /// Decodes a summary. A percentile that the count does not support is dropped even when the
    /// file has it (files written before the rule); fields added later may be missing and unknown
    /// fields are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        definition = try container.decodeIfPresent(String.self, forKey: .definition) ?? ""
        let count = try container.decodeIfPresent(UInt64.self, forKey: .count) ?? 0
        self.count = count
        func supported(_ key: CodingKeys, _ percentile: Double) throws -> UInt64? {
            count >= Self.minimumCount(forPercentile: percentile) ? try container.decodeIfPresent(UInt64.self, forKey: key) : nil
        }
        p50 = try container.decodeIfPresent(UInt64.self, forKey: .p50) ?? 0
        p90 = try supported(.p90, 90)
        p99 = try supported(.p99, 99)
        p999 = try supported(.p999, 99.9)
        p9999 = try supported(.p9999, 99.99)
        max = try container.decodeIfPresent(UInt64.self, forKey: .max) ?? 0
        mean = try container.decodeIfPresent(Double.self, forKey: .mean) ?? 0
        coordinatedOmissionCorrected = try container.decodeIfPresent(Bool.self, forKey: .coordinatedOmissionCorrected) ?? false
        let buckets = try container.decodeIfPresent([Bucket].self, forKey: .recorded) ?? []
        guard Self.fitsAHistogram(buckets.map { ($0.value, $0.count) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .recorded, in: container,
                debugDescription: "latency '\(name)': the recorded samples' count or the sum of their values passes 2^64")
        }
        var recorder = LatencyRecorder()
        for bucket in buckets { recorder.record(bucket.value, count: bucket.count) }
        histogram = recorder.histogram
        intervals = try container.decodeIfPresent([LatencyIntervals].self, forKey: .intervals) ?? []
    }

    /// Encodes the summary (the percentiles the sample count supports) and only the recorded
    /// buckets of the histogram (a few hundred pairs instead of the ~28,000 counters of a 60 s /
    /// 3-digit histogram).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(definition, forKey: .definition)
        try container.encode(count, forKey: .count)
        try container.encode(p50, forKey: .p50)
        try container.encodeIfPresent(p90, forKey: .p90)
        try container.encodeIfPresent(p99, forKey: .p99)
        try container.encodeIfPresent(p999, forKey: .p999)
        try container.encodeIfPresent(p9999, forKey: .p9999)
        try container.encode(max, forKey: .max)
        try container.encode(mean.isFinite ? mean : 0, forKey: .mean)
        try container.encode(coordinatedOmissionCorrected, forKey: .coordinatedOmissionCorrected)
        let buckets = histogram.recordedValues().map { Bucket(value: $0.value, count: $0.count) }
        try container.encode(buckets, forKey: .recorded)
        if !intervals.isEmpty { try container.encode(intervals, forKey: .intervals) }
    }

    /// The percentiles reported everywhere, in order, with the fewest samples each needs; `value`
    /// is `nil` where ``count`` is below that.
    public var percentiles: [(label: String, value: UInt64?, minimumCount: UInt64)] {
        // No samples: no p50 and no max either (the histogram's 0 is not a measured value).
        let empty = count == 0
        return [("p50", empty ? nil : p50, 1), ("p90", p90, Self.minimumCount(forPercentile: 90)),
                ("p99", p99, Self.minimumCount(forPercentile: 99)), ("p99.9", p999, Self.minimumCount(forPercentile: 99.9)),
                ("p99.99", p9999, Self.minimumCount(forPercentile: 99.99)), ("max", empty ? nil : max, 1)]
    }
}
