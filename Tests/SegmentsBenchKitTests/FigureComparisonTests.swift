@testable import SegmentsBenchKit
import XCTest

/// The verdict rule: significant test, interval excluding 1, and a change beyond the noise.
final class FigureComparisonTests: XCTestCase {
    private let policy = ComparisonPolicy(resamples: 2_000)
    private let baseline = [100.0, 102, 98, 101, 99, 103, 97, 100, 101]

    private func compare(
        _ baseline: [Double], _ candidate: [Double], direction: WallClockFigure.Direction = .lowerIsBetter,
        threshold: NoiseThreshold = .default
    ) -> FigureComparison {
        FigureComparison(
            name: "scenario.figureNs", unit: "ns", direction: direction, baseline: baseline, candidate: candidate,
            threshold: threshold, thresholdSource: .default, policy: policy)
    }

    /// Not significant, with an interval reaching past the noise on one side only: inconclusive,
    /// not "no change"; and a p-value equal to alpha is not below it.
    func testTheVerdictsBordersAreWhereTheyAreDocumented() {
        XCTAssertEqual(FigureComparison.judge(
            pValue: 0.5, alpha: 0.01, ratio: ConfidenceInterval(low: 0.99, estimate: 1.0, high: 1.20), threshold: .default,
            direction: .lowerIsBetter), .inconclusive)
        XCTAssertNotEqual(FigureComparison.judge(
            pValue: 0.01, alpha: 0.01, ratio: ConfidenceInterval(low: 1.3, estimate: 1.4, high: 1.5), threshold: .default,
            direction: .lowerIsBetter), .regressed)
    }

    func testIdenticalSamplesAreNoChange() {
        let comparison = compare(baseline, baseline)
        XCTAssertEqual(comparison.test.pValue, 1)
        XCTAssertEqual(comparison.ratio.estimate, 1)
        XCTAssertEqual(comparison.verdict, .noChange)
    }

    /// A baseline whose median is 0 in many resamples puts +∞ at the interval's top; the
    /// interval then contains 1, so the change is not judged a regression, nor no change.
    func testAnIntervalReachingInfinityContainsOneAndIsNoRegression() {
        let comparison = compare(Array(repeating: 0, count: 8) + Array(repeating: 10, count: 12),
                                 Array(repeating: 1, count: 6) + Array(repeating: 11, count: 14))
        XCTAssertLessThan(comparison.test.pValue, 0.01)
        XCTAssertEqual(comparison.ratio.high, .infinity)
        XCTAssertEqual(comparison.verdict, .inconclusive)
    }

    func testATwentyFivePercentSlowerCandidateRegressed() {
        let comparison = compare(baseline, baseline.map { $0 * 1.25 })
        XCTAssertLessThan(comparison.test.pValue, 0.01)
        XCTAssertGreaterThan(comparison.ratio.low, 1)
        XCTAssertEqual(comparison.change.estimate, 0.25, accuracy: 1e-12)
        XCTAssertEqual(comparison.verdict, .regressed)
    }

    func testATwentyFivePercentFasterCandidateImproved() {
        XCTAssertEqual(compare(baseline, baseline.map { $0 * 0.75 }).verdict, .improved)
    }

    func testForARateAHigherMedianIsAnImprovement() {
        XCTAssertEqual(compare(baseline, baseline.map { $0 * 1.25 }, direction: .higherIsBetter).verdict, .improved)
        XCTAssertEqual(compare(baseline, baseline.map { $0 * 0.75 }, direction: .higherIsBetter).verdict, .regressed)
    }

    /// +3% in every run of a steady figure is significant, but within the default 5% threshold.
    func testASignificantChangeBelowTheThresholdIsWithinNoise() {
        let steady = [100.0, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100.0, 100.1]
        let comparison = compare(steady, steady.map { $0 * 1.03 })
        XCTAssertLessThan(comparison.test.pValue, 0.01)
        XCTAssertFalse(comparison.ratio.contains(1))
        XCTAssertEqual(comparison.verdict, .withinNoise)
        XCTAssertEqual(compare(steady, steady.map { $0 * 1.03 }, threshold: NoiseThreshold(relative: 0.01)).verdict, .regressed)
    }

    /// A large median change that the test cannot tell from chance (one slow run per side flips
    /// the medians, not the ranks) is inconclusive, not "no change".
    func testALargeButInsignificantChangeIsInconclusive() {
        let noisyBaseline = [1.0, 5, 1, 5, 1, 5, 1, 5, 1]
        let noisyCandidate = [5.0, 1, 5, 1, 5, 1, 5, 1, 5]
        let comparison = compare(noisyBaseline, noisyCandidate)
        XCTAssertEqual(comparison.ratio.estimate, 5)
        XCTAssertGreaterThan(comparison.test.pValue, 0.01)
        XCTAssertEqual(comparison.verdict, .inconclusive)
    }

    /// Too few runs to reach the significance level: a 50% slower candidate must not read as
    /// "no change".
    func testAChangeTooFewRunsCanProveIsInconclusive() {
        let comparison = compare([100, 101], [150, 152])
        XCTAssertGreaterThanOrEqual(comparison.test.pValue, 0.01)
        XCTAssertEqual(comparison.verdict, .inconclusive)
    }

    /// Not significant, and the whole interval within the threshold: no change.
    func testAnInsignificantChangeWithinTheThresholdIsNoChange() {
        let steady = [100.0, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100.0, 100.1]
        let comparison = compare(steady, steady.reversed())
        XCTAssertEqual(comparison.verdict, .noChange)
    }

    func testTheRuleNeedsBothTheTestAndTheInterval() {
        let excluding = ConfidenceInterval(low: 1.2, estimate: 1.3, high: 1.4)
        let including = ConfidenceInterval(low: 0.9, estimate: 1.3, high: 1.4)
        XCTAssertEqual(FigureComparison.judge(pValue: 0.001, alpha: 0.01, ratio: excluding, threshold: .default, direction: .lowerIsBetter), .regressed)
        XCTAssertEqual(FigureComparison.judge(pValue: 0.001, alpha: 0.01, ratio: including, threshold: .default, direction: .lowerIsBetter), .inconclusive)
        XCTAssertEqual(FigureComparison.judge(pValue: 0.02, alpha: 0.01, ratio: excluding, threshold: .default, direction: .lowerIsBetter), .inconclusive)
        let narrow = ConfidenceInterval(low: 0.99, estimate: 1.0, high: 1.02)
        XCTAssertEqual(FigureComparison.judge(pValue: 0.5, alpha: 0.01, ratio: narrow, threshold: .default, direction: .lowerIsBetter), .noChange)
        XCTAssertEqual(FigureComparison.judge(pValue: 0.02, alpha: 0.05, ratio: excluding, threshold: .default, direction: .lowerIsBetter), .regressed)
    }

    func testAFiguresBootstrapDependsOnItsNameNotOnOtherFigures() {
        XCTAssertEqual(policy.bootstrap(for: "a.b"), policy.bootstrap(for: "a.b"))
        XCTAssertNotEqual(policy.bootstrap(for: "a.b").seed, policy.bootstrap(for: "a.c").seed)
    }

    func testOnlyTimesAndRatesAreWallClock() {
        XCTAssertEqual(WallClockFigure.direction(unit: "ns"), .lowerIsBetter)
        XCTAssertEqual(WallClockFigure.direction(unit: "µs"), .lowerIsBetter)
        XCTAssertEqual(WallClockFigure.direction(unit: "ms"), .lowerIsBetter)
        XCTAssertEqual(WallClockFigure.direction(unit: "ops/s"), .higherIsBetter)
        XCTAssertNil(WallClockFigure.direction(unit: "allocs/op"))
        XCTAssertNil(WallClockFigure.direction(unit: "count"))
        XCTAssertNil(WallClockFigure.direction(unit: "ratio"))
        XCTAssertNil(WallClockFigure.direction(unit: "bytes"))
    }
}
