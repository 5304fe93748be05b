import SegmentsMockServer

/// Percentile bootstrap confidence intervals of medians and of the ratio of two medians.
///
/// Each resample draws, with replacement, as many values as the sample has; the interval is the
/// `(1 − confidence)/2` and `(1 + confidence)/2` quantiles of the statistic over ``resamples``
/// resamples. The draws come from ``SplitMix64`` seeded with ``seed``, so the same inputs and seed
/// give the same interval on every platform.
///
/// A value type with no shared state; callable from any thread.
public struct Bootstrap: Sendable, Hashable {
    /// How many resamples (at least 1; 2,000 or more for a 95% interval).
    public var resamples: Int
    /// Coverage of the interval, in `0 ..< 1` (0.95 for 95%).
    public var confidence: Double
    /// Seed of the resampling.
    public var seed: UInt64

    /// Creates a bootstrap.
    ///
    /// - Precondition: `resamples >= 1` and `0 < confidence < 1`.
    public init(resamples: Int = 10_000, confidence: Double = 0.95, seed: UInt64 = 1) {
        precondition(resamples >= 1, "a bootstrap needs at least one resample")
        precondition(confidence > 0 && confidence < 1, "confidence must lie strictly between 0 and 1")
        self.resamples = resamples
        self.confidence = confidence
        self.seed = seed
    }

    /// The median of `sample` with its interval.
    ///
    /// - Precondition: `sample` is not empty.
    public func median(of sample: [Double]) -> ConfidenceInterval {
        precondition(!sample.isEmpty, "a bootstrap needs a non-empty sample")
        var generator = SplitMix64(seed: seed)
        var scratch = sample
        let medians = (0..<resamples).map { _ in Self.resampledMedian(sample, into: &scratch, using: &generator) }
        return interval(of: medians, estimate: SampleStatistics.median(sample))
    }

    /// `median(candidate) / median(baseline)` with its interval; the two samples are resampled
    /// independently. A ratio of 1.3 means the candidate's median is 30% higher.
    ///
    /// - Precondition: neither sample is empty.
    public func ratioOfMedians(baseline: [Double], candidate: [Double]) -> ConfidenceInterval {
        precondition(!baseline.isEmpty && !candidate.isEmpty, "a bootstrap needs non-empty samples")
        var generator = SplitMix64(seed: seed)
        var baselineScratch = baseline
        var candidateScratch = candidate
        let ratios = (0..<resamples).map { _ in
            let base = Self.resampledMedian(baseline, into: &baselineScratch, using: &generator)
            let cand = Self.resampledMedian(candidate, into: &candidateScratch, using: &generator)
            return SampleStatistics.ratio(cand, to: base)
        }
        let estimate = SampleStatistics.ratio(SampleStatistics.median(candidate), to: SampleStatistics.median(baseline))
        return interval(of: ratios, estimate: estimate)
    }

    private func interval(of statistics: [Double], estimate: Double) -> ConfidenceInterval {
        let sorted = statistics.sorted()
        let tail = (1 - confidence) / 2
        return ConfidenceInterval(
            low: SampleStatistics.quantile(sorted, tail), estimate: estimate,
            high: SampleStatistics.quantile(sorted, 1 - tail))
    }

    /// Fills `scratch` with a resample of `sample` and returns its median.
    private static func resampledMedian(
        _ sample: [Double], into scratch: inout [Double], using generator: inout SplitMix64
    ) -> Double {
        for index in scratch.indices { scratch[index] = sample[generator.index(below: sample.count)] }
        scratch.sort()
        return SampleStatistics.quantile(scratch, 0.5)
    }
}

extension SplitMix64 {
    /// A uniform index in `0 ..< count` (Lemire's multiply-shift, without the rejection step: the
    /// bias is below `count / 2⁶⁴`). Unlike `Int.random(in:using:)`, whose algorithm the standard
    /// library may change, it gives the same sequence on every Swift version.
    mutating func index(below count: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(count)).high)
    }
}
