import Foundation
import SegmentsMockServer

/// How far the median of a figure moves between runs of the same build: a change of the median
/// within the threshold is noise, whatever the test says.
///
/// The threshold is symmetric in log space: a median ratio `r` is within a threshold of
/// ``relative`` when `1 / (1 + relative) <= r <= 1 + relative`, so +5% and the matching −4.76% are
/// judged alike.
///
/// ``calibrate(sameBuild:groupSize:splits:quantile:seed:)`` derives it from runs of one build
/// against itself (A/A): it splits the pooled runs at random into two groups of the size a
/// comparison uses, many times, and takes a high quantile of `|ln(median ratio)|` over the splits,
/// i.e. how large a change of the median chance alone produces that often. A value type; callable
/// from any thread.
public struct NoiseThreshold: Codable, Sendable, Hashable {
    /// The relative change of a median that still counts as noise (0.05 = 5%). Never negative;
    /// infinite when same-build runs differ without bound (a median of 0 against one that is not).
    public var relative: Double

    /// Creates a threshold of `relative` (0.05 = 5%).
    public init(relative: Double) {
        self.relative = max(relative, 0)
    }

    /// The threshold of a figure that was not calibrated: 5%.
    public static let `default` = NoiseThreshold(relative: 0.05)

    /// The smallest calibrated threshold, 1%: a figure that never moved during calibration can
    /// still move by that much on another day of the same machine.
    public static let minimumRelative = 0.01

    /// `true` when a ratio of medians (candidate / baseline) lies within the noise, bounds
    /// included (up to rounding: 1.05 lies within 5%).
    public func admits(ratio: Double) -> Bool {
        guard ratio > 0, ratio.isFinite else { return relative.isInfinite }
        return abs(log(ratio)) <= log1p(relative) + 1e-12
    }

    /// Calibrates from the values of one figure over same-build runs.
    ///
    /// - Parameters:
    ///   - sameBuild: the figure's value in each A/A run (both groups pooled; at least 2 values).
    ///   - groupSize: the values per side of the comparisons the threshold will serve (its
    ///     `--repetitions`); capped at half the pooled values.
    ///   - splits: how many random splits (at least 1).
    ///   - quantile: which quantile of `|ln(median ratio)|` over the splits (0.95 by default).
    ///   - seed: seed of the splits; equal inputs and seed give equal thresholds.
    /// - Returns: at least ``minimumRelative``.
    /// - Precondition: `sameBuild` has at least 2 values, none of them NaN; `groupSize >= 1`,
    ///   `splits >= 1`.
    public static func calibrate(
        sameBuild: [Double], groupSize: Int, splits: Int = 4_000, quantile: Double = 0.95, seed: UInt64 = 1
    ) -> NoiseThreshold {
        precondition(sameBuild.count >= 2 && groupSize >= 1 && splits >= 1, "calibration needs two values and one split")
        precondition(!sameBuild.contains(where: \.isNaN), "calibration cannot use NaN")
        let size = min(groupSize, sameBuild.count / 2)
        var generator = SplitMix64(seed: seed)
        var pool = sameBuild
        var distances: [Double] = []
        distances.reserveCapacity(splits)
        for _ in 0..<splits {
            // A partial Fisher-Yates shuffle: the first 2·size places become a uniform random draw.
            for index in 0..<(2 * size) {
                pool.swapAt(index, index + generator.index(below: pool.count - index))
            }
            let first = SampleStatistics.median(Array(pool[0..<size]))
            let second = SampleStatistics.median(Array(pool[size..<(2 * size)]))
            let ratio = SampleStatistics.ratio(second, to: first)
            distances.append(ratio > 0 ? abs(log(ratio)) : .infinity)
        }
        let spread = SampleStatistics.quantile(distances.sorted(), quantile)
        return NoiseThreshold(relative: max(expm1(spread), minimumRelative))
    }
}
