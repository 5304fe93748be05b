@testable import SegmentsBenchKit
import XCTest

/// Percentile bootstrap intervals: deterministic for a seed, sensible bounds.
final class BootstrapTests: XCTestCase {
    private let baseline = [0.43, 1.02, 1.09, 0.99, 0.97, 1.05, 1.01, 0.95, 1.10]
    private let candidate = [1.21, 1.30, 1.18, 1.25, 0.99, 1.27, 1.33, 1.22, 1.24]

    func testTheSameSeedGivesTheSameInterval() {
        let first = Bootstrap(resamples: 2_000, seed: 42).ratioOfMedians(baseline: baseline, candidate: candidate)
        let second = Bootstrap(resamples: 2_000, seed: 42).ratioOfMedians(baseline: baseline, candidate: candidate)
        XCTAssertEqual(first, second)
    }

    func testAnotherSeedDrawsOtherResamples() {
        let first = Bootstrap(resamples: 2_000, seed: 1).median(of: baseline + candidate)
        let second = Bootstrap(resamples: 2_000, seed: 2).median(of: baseline + candidate)
        XCTAssertEqual(first.estimate, second.estimate)
        XCTAssertNotEqual([first.low, first.high], [second.low, second.high])
    }

    func testTheEstimateIsTheRatioOfTheMeasuredMedians() {
        let interval = Bootstrap(resamples: 2_000).ratioOfMedians(baseline: baseline, candidate: candidate)
        XCTAssertEqual(interval.estimate, 1.24 / 1.01, accuracy: 1e-12)
        XCTAssertLessThanOrEqual(interval.low, interval.estimate)
        XCTAssertGreaterThanOrEqual(interval.high, interval.estimate)
    }

    /// A resampled median is one of the values (odd sizes), so the interval lies within the sample.
    func testAMedianIntervalLiesWithinTheSample() {
        let interval = Bootstrap(resamples: 2_000).median(of: baseline)
        XCTAssertEqual(interval.estimate, 1.01)
        XCTAssertGreaterThanOrEqual(interval.low, 0.43)
        XCTAssertLessThanOrEqual(interval.high, 1.10)
        XCTAssertTrue(baseline.contains(interval.low))
    }

    func testAClearShiftGivesAnIntervalThatExcludesOne() {
        let interval = Bootstrap(resamples: 2_000).ratioOfMedians(baseline: baseline, candidate: candidate)
        XCTAssertFalse(interval.contains(1))
        XCTAssertGreaterThan(interval.low, 1)
    }

    func testIdenticalConstantSamplesGiveExactlyOne() {
        let sample = Array(repeating: 3.0, count: 9)
        XCTAssertEqual(
            Bootstrap(resamples: 2_000).ratioOfMedians(baseline: sample, candidate: sample),
            ConfidenceInterval(low: 1, estimate: 1, high: 1))
    }

    func testIdenticalSamplesGiveAnIntervalAroundOne() {
        let interval = Bootstrap(resamples: 2_000).ratioOfMedians(baseline: baseline, candidate: baseline)
        XCTAssertEqual(interval.estimate, 1)
        XCTAssertTrue(interval.contains(1))
    }

    func testAZeroBaselineMedianGivesAnInfiniteRatio() {
        let interval = Bootstrap(resamples: 100).ratioOfMedians(baseline: [0, 0, 0], candidate: [1, 1, 1])
        XCTAssertEqual(interval.estimate, .infinity)
    }

    /// Between two infinite order statistics the quantile is infinite, not ∞ − ∞ = NaN: a NaN
    /// bound read as "the interval excludes 1" and let an undecided change through.
    func testAQuantileBetweenTwoInfiniteOrderStatisticsIsInfinite() {
        XCTAssertEqual(SampleStatistics.quantile([1, .infinity, .infinity], 0.75), .infinity)
        XCTAssertEqual(SampleStatistics.quantile([1, .infinity], 0.5), .infinity)
        XCTAssertEqual(SampleStatistics.quantile([-.infinity, -.infinity, 1], 0.25), -.infinity)
    }

    func testQuantilesInterpolateBetweenOrderStatistics() {
        XCTAssertEqual(SampleStatistics.quantile([1, 2, 3, 4], 0.5), 2.5)
        XCTAssertEqual(SampleStatistics.quantile([1, 2, 3, 4], 0.25), 1.75)
        XCTAssertEqual(SampleStatistics.quantile([1, 2, 3, 4], 1), 4)
        XCTAssertEqual(SampleStatistics.median([3, 1, 2]), 2)
        XCTAssertTrue(SampleStatistics.median([]).isNaN)
    }
}
