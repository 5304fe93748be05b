/// The verdict on one wall-clock figure measured repeatedly on two builds.
///
/// A change is reported only when three things agree:
/// 1. the Mann-Whitney U test finds the samples different: `p < alpha`;
/// 2. the bootstrap interval of `median(candidate) / median(baseline)` excludes 1;
/// 3. the ratio of medians lies outside the figure's ``NoiseThreshold``.
///
/// With 1 and 2 but not 3 the verdict is ``Verdict/withinNoise``: real, perhaps, but smaller than
/// what same-build runs show. Without 1 or 2 it is ``Verdict/noChange`` only if the whole interval
/// lies within the noise threshold; an interval that reaches beyond it is ``Verdict/inconclusive``:
/// the runs cannot tell a change of that size from none. A value computed once by ``init(name:unit:direction:baseline:candidate:threshold:thresholdSource:policy:)``.
public struct FigureComparison: Codable, Sendable {
    /// What the comparison concluded.
    public enum Verdict: String, Codable, Sendable, CaseIterable {
        /// The test or the interval does not show a difference, and the interval lies within the
        /// noise threshold: any change is smaller than the noise.
        case noChange = "no change"
        /// The test or the interval does not show a difference, but the interval reaches beyond
        /// the noise threshold: a change of that size cannot be ruled out (more repetitions can
        /// tell). Does not fail the comparison.
        case inconclusive
        /// Significantly worse, beyond the noise threshold: fails the comparison.
        case regressed
        /// Significantly better, beyond the noise threshold.
        case improved
        /// Significant, but the change of the median is within the noise threshold.
        case withinNoise = "within noise"
    }

    /// Where a figure's noise threshold came from.
    public enum ThresholdSource: String, Codable, Sendable {
        /// The threshold file (`segments-bench calibrate`).
        case calibrated
        /// ``ComparisonPolicy/defaultThreshold``.
        case `default`
    }

    /// The figure's name (`<scenario>.<what>`).
    public var name: String
    /// Its unit.
    public var unit: String
    /// Which way is better.
    public var direction: WallClockFigure.Direction
    /// The baseline build's values, in run order.
    public var baselineSamples: [Double]
    /// The candidate build's values, in run order.
    public var candidateSamples: [Double]
    /// The baseline's median with its bootstrap interval.
    public var baseline: ConfidenceInterval
    /// The candidate's median with its bootstrap interval.
    public var candidate: ConfidenceInterval
    /// `median(candidate) / median(baseline)` with its bootstrap interval.
    public var ratio: ConfidenceInterval
    /// The Mann-Whitney U test of baseline against candidate.
    public var test: MannWhitneyTest.Result
    /// The significance level the p-value was held to.
    public var alpha: Double
    /// The noise threshold applied.
    public var threshold: NoiseThreshold
    /// Where ``threshold`` came from.
    public var thresholdSource: ThresholdSource
    /// The conclusion.
    public var verdict: Verdict

    /// The relative change of the median and its interval: `ratio − 1` (0.25 = 25% higher).
    public var change: ConfidenceInterval {
        ConfidenceInterval(low: ratio.low - 1, estimate: ratio.estimate - 1, high: ratio.high - 1)
    }

    /// Compares the figure's samples.
    ///
    /// - Precondition: both samples are non-empty and contain no NaN.
    public init(
        name: String, unit: String, direction: WallClockFigure.Direction, baseline: [Double], candidate: [Double],
        threshold: NoiseThreshold, thresholdSource: ThresholdSource, policy: ComparisonPolicy
    ) {
        let bootstrap = policy.bootstrap(for: name)
        self.name = name
        self.unit = unit
        self.direction = direction
        self.baselineSamples = baseline
        self.candidateSamples = candidate
        self.baseline = bootstrap.median(of: baseline)
        self.candidate = bootstrap.median(of: candidate)
        self.ratio = bootstrap.ratioOfMedians(baseline: baseline, candidate: candidate)
        self.test = MannWhitneyTest.test(baseline, candidate)
        self.alpha = policy.alpha
        self.threshold = threshold
        self.thresholdSource = thresholdSource
        self.verdict = Self.judge(
            pValue: test.pValue, alpha: policy.alpha, ratio: ratio, threshold: threshold, direction: direction)
    }

    /// The verdict rule (see ``FigureComparison``).
    static func judge(
        pValue: Double, alpha: Double, ratio: ConfidenceInterval, threshold: NoiseThreshold,
        direction: WallClockFigure.Direction
    ) -> Verdict {
        guard pValue < alpha, !ratio.contains(1) else {
            return threshold.admits(ratio: ratio.low) && threshold.admits(ratio: ratio.high) ? .noChange : .inconclusive
        }
        if threshold.admits(ratio: ratio.estimate) { return .withinNoise }
        let higher = ratio.estimate > 1
        return higher == (direction == .lowerIsBetter) ? .regressed : .improved
    }
}
