import Foundation
import Histogram

/// Records latencies in nanoseconds into an HdrHistogram (1 ns to 60 s, 3 significant digits).
///
/// Not thread-safe: give each thread its own recorder and ``merge(_:)`` them afterwards, so that
/// recording stays a few nanoseconds and never contends.
///
/// A recorder made by ``IntervalLatencyRecorder/finish(startTime:)`` also carries its values per
/// interval of time (``intervals``); merging keeps them while every merged recorder has them over
/// the same intervals.
public struct LatencyRecorder: Sendable {
    public private(set) var histogram: Histogram<UInt64>
    /// The same values per interval of time, when they were recorded that way.
    public private(set) var intervals: LatencyIntervals?

    /// Creates an empty recorder.
    public init() {
        histogram = Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    /// A recorder holding `histogram` (with ``LatencyRecorder``'s layout), split into `intervals`.
    init(histogram: Histogram<UInt64>, intervals: LatencyIntervals?) {
        self.histogram = histogram
        self.intervals = intervals
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

    /// Adds another recorder's values. The intervals stay when both recorders have them over the
    /// same intervals (or one of them recorded nothing and has none); otherwise they are dropped,
    /// since they would no longer add up to the histogram.
    public mutating func merge(_ other: LatencyRecorder) {
        if intervals == nil && count == 0 {
            intervals = other.intervals
        } else if other.intervals == nil && other.count == 0 {
            // Nothing to add to the intervals.
        } else if var mine = intervals, let theirs = other.intervals, mine.add(theirs) {
            intervals = mine
        } else {
            intervals = nil
        }
        histogram.add(other.histogram)
    }

    /// The number of recorded values.
    public var count: UInt64 { histogram.totalCount }

    /// A summary for the report.
    public func summary(_ name: String, definition: String, corrected: Bool = false) -> LatencySummary {
        LatencySummary(
            name: name, definition: definition, histogram: histogram, corrected: corrected, intervals: intervals.map { [$0] } ?? [])
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
