/// What a latency recorded by interval did second by second: per interval, the operations per
/// second and the p50 and p99 latency (each only where the interval has the samples the
/// percentile needs, ``LatencySummary/minimumCount(forPercentile:)``).
public struct IntervalTimeline: Sendable {
    /// One interval; `time` is seconds from the series' first interval to this one's start.
    public struct Point: Sendable, Equatable {
        public var time: Double
        public var operationsPerSecond: Double
        /// ns; `nil` for an empty interval.
        public var p50: UInt64?
        /// ns; `nil` below 100 samples.
        public var p99: UInt64?
    }

    /// The host that recorded the series (`nil`: the report's machine).
    public var host: String?
    public var points: [Point]

    /// The timeline of `intervals`.
    public init(_ intervals: LatencyIntervals) {
        host = intervals.host
        let minimumForP99 = LatencySummary.minimumCount(forPercentile: 99)
        points = intervals.histograms.enumerated().map { index, histogram in
            let count = histogram.totalCount
            return Point(
                time: Double(index) * intervals.intervalSeconds,
                operationsPerSecond: Double(count) / intervals.seconds(ofInterval: index),
                p50: count > 0 ? histogram.valueAtPercentile(50) : nil,
                p99: count >= minimumForP99 ? histogram.valueAtPercentile(99) : nil)
        }
    }
}
