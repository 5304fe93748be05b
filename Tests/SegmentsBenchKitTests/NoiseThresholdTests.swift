@testable import SegmentsBenchKit
import XCTest

/// Noise thresholds: the symmetric admission rule and calibration from same-build runs.
final class NoiseThresholdTests: XCTestCase {
    func testAThresholdAdmitsTheSameChangeUpAndDownInLogSpace() {
        let threshold = NoiseThreshold(relative: 0.05)
        XCTAssertTrue(threshold.admits(ratio: 1))
        XCTAssertTrue(threshold.admits(ratio: 1.05))
        XCTAssertTrue(threshold.admits(ratio: 1 / 1.05))
        XCTAssertFalse(threshold.admits(ratio: 1.051))
        XCTAssertFalse(threshold.admits(ratio: 0.95))
    }

    func testOnlyAnInfiniteThresholdAdmitsAnInfiniteOrZeroRatio() {
        XCTAssertFalse(NoiseThreshold(relative: 10).admits(ratio: .infinity))
        XCTAssertFalse(NoiseThreshold(relative: 10).admits(ratio: 0))
        XCTAssertTrue(NoiseThreshold(relative: .infinity).admits(ratio: .infinity))
    }

    /// Groups of one drawn from [1, 2]: every split has a median ratio of 2 or ½, |ln r| = ln 2.
    func testTwoRunsThatDifferByAFactorOfTwoCalibrateToOneHundredPercent() {
        let threshold = NoiseThreshold.calibrate(sameBuild: [1, 2], groupSize: 1, splits: 500)
        XCTAssertEqual(threshold.relative, 1, accuracy: 1e-12)
    }

    /// Groups of one drawn from [1, 1, 1, 2]: half the splits compare two 1s (|ln r| = 0), half
    /// compare a 1 with the 2 (ln 2). The 95th percentile is ln 2, the 25th is 0, so the floor.
    func testTheQuantileChoosesHowRareAChanceChangeMayBe() {
        let runs: [Double] = [1, 1, 1, 2]
        XCTAssertEqual(NoiseThreshold.calibrate(sameBuild: runs, groupSize: 1, quantile: 0.95).relative, 1, accuracy: 1e-12)
        XCTAssertEqual(
            NoiseThreshold.calibrate(sameBuild: runs, groupSize: 1, quantile: 0.25).relative, NoiseThreshold.minimumRelative)
    }

    func testAFigureThatNeverMovesGetsTheMinimumThreshold() {
        let threshold = NoiseThreshold.calibrate(sameBuild: Array(repeating: 812, count: 18), groupSize: 9)
        XCTAssertEqual(threshold.relative, NoiseThreshold.minimumRelative)
    }

    func testANoisierFigureGetsAWiderThreshold() {
        let calm = (0..<18).map { 100 + Double($0 % 6) }          // 100 … 105
        let noisy = (0..<18).map { 100 + 10 * Double($0 % 6) }    // 100 … 150
        let calmThreshold = NoiseThreshold.calibrate(sameBuild: calm, groupSize: 9)
        let noisyThreshold = NoiseThreshold.calibrate(sameBuild: noisy, groupSize: 9)
        XCTAssertGreaterThan(noisyThreshold.relative, calmThreshold.relative)
        XCTAssertLessThan(calmThreshold.relative, 0.05)
    }

    func testCalibrationIsDeterministicForASeed() {
        let runs = [0.43, 1.02, 1.09, 0.99, 0.97, 1.05, 1.01, 0.95, 1.10, 1.21, 1.30, 1.18]
        XCTAssertEqual(
            NoiseThreshold.calibrate(sameBuild: runs, groupSize: 6, seed: 3),
            NoiseThreshold.calibrate(sameBuild: runs, groupSize: 6, seed: 3))
    }

    func testTheGroupSizeIsCappedAtHalfTheRuns() {
        // Groups of 9 cannot be drawn from 2 runs: groups of 1 are, as above.
        XCTAssertEqual(NoiseThreshold.calibrate(sameBuild: [1, 2], groupSize: 9, splits: 100).relative, 1, accuracy: 1e-12)
    }

    /// Splits that compare a median of 0 with one that is not: the documented infinite threshold,
    /// not NaN (which admits no noise at all, and is written to the file as "NaN").
    func testSplitsAgainstAZeroMedianGiveAnInfiniteThresholdNotNaN() {
        XCTAssertEqual(NoiseThreshold.calibrate(sameBuild: [0, 1], groupSize: 1).relative, .infinity)
    }
}
