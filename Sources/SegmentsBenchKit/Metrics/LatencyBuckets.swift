import Foundation
import Histogram

/// The bucket bounds of the live latency histograms and how an HdrHistogram folds into them.
///
/// The bounds grow by a factor of 2^(1/4) (about 19 %) from 2^7 ns (128 ns) to 2^36 ns (about
/// 68.7 s), so a quantile that Prometheus interpolates inside one bucket is within one bucket's
/// width, a factor of 2^(1/4), of the exact one; 117 bounds plus `+Inf` per series.
public enum LatencyBuckets {
    /// Each bucket's upper bound in nanoseconds, ascending (Prometheus `le`, inclusive).
    public static let boundsNanoseconds: [UInt64] = (28...144).map { step in
        UInt64(pow(2, Double(step) / 4).rounded())
    }

    /// How much wider one bucket is than the previous one.
    public static let growthFactor = pow(2, 0.25)

    /// The index in ``boundsNanoseconds`` of the first bound at or above `nanoseconds`;
    /// `boundsNanoseconds.count` for a value above every bound (the `+Inf` bucket).
    public static func index(of nanoseconds: UInt64) -> Int {
        var low = 0
        var high = boundsNanoseconds.count
        while low < high {
            let middle = (low + high) / 2
            if boundsNanoseconds[middle] >= nanoseconds { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// A histogram's recorded values folded into the buckets: per-bucket (not cumulative) counts
    /// with the `+Inf` bucket last, the total and the sum. Walks the recorded values once; the
    /// caller decides where that runs (never per event).
    public static func fold(_ histogram: Histogram<UInt64>) -> LatencyBucketCounts {
        var counts = [UInt64](repeating: 0, count: boundsNanoseconds.count + 1)
        var sum = 0.0
        var total: UInt64 = 0
        var least: UInt64?
        var greatest: UInt64?
        for recorded in histogram.recordedValues() where recorded.count > 0 {
            counts[index(of: recorded.value)] += recorded.count
            sum += Double(recorded.value) * Double(recorded.count)
            total += recorded.count
            least = Swift.min(least ?? recorded.value, recorded.value)
            greatest = Swift.max(greatest ?? recorded.value, recorded.value)
        }
        return LatencyBucketCounts(
            counts: counts, count: total, sumNanoseconds: sum, minNanoseconds: least.map { Double($0) },
            maxNanoseconds: greatest.map { Double($0) })
    }
}

/// One latency distribution folded into ``LatencyBuckets``: what a `/metrics` histogram shows.
public struct LatencyBucketCounts: Sendable, Equatable {
    /// Per-bucket counts, one per bound of ``LatencyBuckets/boundsNanoseconds`` and `+Inf` last.
    public var counts: [UInt64]
    /// Values recorded.
    public var count: UInt64
    /// Sum of the values in nanoseconds.
    public var sumNanoseconds: Double
    /// The least value recorded, in nanoseconds (`nil` if none or not known).
    public var minNanoseconds: Double?
    /// The greatest value recorded, in nanoseconds (`nil` if none or not known).
    public var maxNanoseconds: Double?
}
