import Foundation
import Histogram

/// Records latencies in nanoseconds into an HdrHistogram (1 ns to 60 s, 3 significant digits).
///
/// Not thread-safe: give each thread its own recorder and ``merge(_:)`` them afterwards, so that
/// recording stays a few nanoseconds and never contends.
public struct LatencyRecorder: Sendable {
    public private(set) var histogram: Histogram<UInt64>

    /// Creates an empty recorder.
    public init() {
        histogram = Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    /// Records one value (clamped to the trackable range).
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64) {
        _ = histogram.record(min(max(nanoseconds, 1), 60_000_000_000))
    }

    /// Records `value` `count` times.
    public mutating func record(_ nanoseconds: UInt64, count: UInt64) {
        _ = histogram.record(min(Swift.max(nanoseconds, 1), 60_000_000_000), count: count)
    }

    /// Records a value measured against a schedule with period `expectedInterval`, adding the
    /// samples a stalled load generator would have taken (coordinated-omission correction).
    public mutating func recordCorrected(_ nanoseconds: UInt64, expectedInterval: UInt64) {
        _ = histogram.recordCorrectedValue(min(max(nanoseconds, 1), 60_000_000_000), expectedInterval: expectedInterval)
    }

    /// Adds another recorder's values.
    public mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
    }

    /// The number of recorded values.
    public var count: UInt64 { histogram.totalCount }

    /// A summary for the report.
    public func summary(_ name: String, definition: String, corrected: Bool = false) -> LatencySummary {
        LatencySummary(name: name, definition: definition, histogram: histogram, corrected: corrected)
    }

    /// The recorder's own cost per `record` including one clock read, in ns (median of 5 trials of
    /// 200,000 records), so reports can say how much of a latency is measurement.
    public static func measureOwnOverhead() -> Double {
        var trials: [Double] = []
        for _ in 0..<5 {
            var recorder = LatencyRecorder()
            let iterations = 200_000
            let start = monotonicNanoseconds()
            var previous = start
            for _ in 0..<iterations {
                let now = monotonicNanoseconds()
                recorder.record(now &- previous)
                previous = now
            }
            trials.append(Double(monotonicNanoseconds() - start) / Double(iterations))
            blackHole(recorder)
        }
        return median(trials)
    }
}
