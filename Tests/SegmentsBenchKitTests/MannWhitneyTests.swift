@testable import SegmentsBenchKit
import XCTest

/// The Mann-Whitney U test against hand-computed values and SciPy's `mannwhitneyu`.
///
/// Expected values marked "SciPy" were computed once with SciPy 1.17.1,
/// `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=...)` (its `statistic` is U of
/// `x`), and are hard-coded here: the tests do not need Python.
final class MannWhitneyTests: XCTestCase {
    /// By hand: every x is below every y, so U = 0; of the C(6, 3) = 20 equally likely rank
    /// arrangements only this one and its mirror are as extreme, so p = 2/20.
    func testFullySeparatedSamplesOfThreeHaveTheExactPValueOfOneTenth() {
        let result = MannWhitneyTest.test([1, 2, 3], [4, 5, 6])
        XCTAssertEqual(result.u, 0)
        XCTAssertEqual(result.method, .exact)
        XCTAssertEqual(result.pValue, 0.1, accuracy: 1e-12)
    }

    /// By hand: x = [1.1, 3.4, 2.2, 5.0] beats 0.9 four times, 2.5 twice (3.4, 5.0) and 4.1 once
    /// (5.0): U = 7. SciPy (exact): p = 0.5555555555555556.
    func testUCountsThePairsWhereTheFirstSampleIsLarger() {
        let result = MannWhitneyTest.test([1.1, 3.4, 2.2, 5.0], [2.5, 4.1, 6.3, 7.7, 0.9])
        XCTAssertEqual(result.u, 7)
        XCTAssertEqual(result.method, .exact)
        XCTAssertEqual(result.pValue, 0.5555555555555556, accuracy: 1e-12)
    }

    /// SciPy (asymptotic, chosen by `auto` because of the ties): U = 16, p = 0.03360825969691446.
    func testTiesUseTheTieCorrectedNormalApproximation() {
        let result = MannWhitneyTest.test([1, 2, 2, 3, 4, 5, 6, 7, 8], [3, 4, 5, 6, 9, 10, 11, 12, 13])
        XCTAssertEqual(result.u, 16)
        XCTAssertEqual(result.method, .asymptotic)
        XCTAssertEqual(result.pValue, 0.03360825969691446, accuracy: 1e-12)
    }

    /// Nine wall-clock readings per build, the baseline's including a 0.43 outlier. SciPy: U = 5.5,
    /// p = 0.0023037178153796625 (asymptotic).
    func testNineWallClockReadingsPerBuildMatchSciPy() {
        let baseline = [0.43, 1.02, 1.09, 0.99, 0.97, 1.05, 1.01, 0.95, 1.10]
        let candidate = [1.21, 1.30, 1.18, 1.25, 0.99, 1.27, 1.33, 1.22, 1.24]
        let result = MannWhitneyTest.test(baseline, candidate)
        XCTAssertEqual(result.u, 5.5)
        XCTAssertEqual(result.pValue, 0.0023037178153796625, accuracy: 1e-12)
    }

    /// Ten interleaved, overlapping readings per build without ties. SciPy: U = 45,
    /// p = 0.7337299956962472 (asymptotic) and 0.7393643508194593 (exact).
    func testOverlappingSamplesMatchSciPyBothWays() {
        let x = [10.2, 11.5, 9.8, 10.9, 10.1, 10.7, 11.0, 9.9, 10.4, 10.6]
        let y = [10.3, 11.1, 10.0, 10.8, 10.5, 11.2, 9.7, 10.65, 11.3, 10.35]
        let asymptotic = MannWhitneyTest.test(x, y)
        XCTAssertEqual(asymptotic.method, .asymptotic)
        XCTAssertEqual(asymptotic.u, 45)
        XCTAssertEqual(asymptotic.pValue, 0.7337299956962472, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyTest.test(x, y, method: .exact).pValue, 0.7393643508194593, accuracy: 1e-12)
    }

    /// SciPy for x = 1…9, y = 10…18: p = 0.00041229480206169127 (asymptotic),
    /// 4.113533525298231e-05 (exact).
    func testNineAgainstNineFullySeparatedIsSignificantAtOnePercent() {
        let x = (1...9).map(Double.init)
        let y = (10...18).map(Double.init)
        XCTAssertEqual(MannWhitneyTest.test(x, y).pValue, 0.00041229480206169127, accuracy: 1e-15)
        XCTAssertEqual(MannWhitneyTest.test(x, y, method: .exact).pValue, 4.113533525298231e-05, accuracy: 1e-15)
    }

    /// The exact distribution with unequal sizes (5 against 30). SciPy: U = 65, p = 0.6638100988195864.
    func testExactDistributionWithUnequalSizesMatchesSciPy() {
        let x = [3.1, 7.4, 0.5, 9.9, 4.2]
        let y = (1...30).map { Double($0) * 0.37 + 0.001 }
        let result = MannWhitneyTest.test(x, y)
        XCTAssertEqual(result.method, .exact)
        XCTAssertEqual(result.u, 65)
        XCTAssertEqual(result.pValue, 0.6638100988195864, accuracy: 1e-12)
    }

    /// Two constant builds that differ: every value tied within its build. SciPy: p = 4.657054587626058e-05.
    func testTwoConstantSamplesThatDifferAreSignificant() {
        let result = MannWhitneyTest.test(Array(repeating: 1, count: 9), Array(repeating: 2, count: 9))
        XCTAssertEqual(result.u, 0)
        XCTAssertEqual(result.pValue, 4.657054587626058e-05, accuracy: 1e-15)
    }

    func testIdenticalSamplesHavePValueOne() {
        let sample = [5.0, 3, 8, 1, 9, 2, 7, 4, 6]
        XCTAssertEqual(MannWhitneyTest.test(sample, sample).pValue, 1)
        XCTAssertEqual(MannWhitneyTest.test(sample, sample).u, 40.5)
        let constant = Array(repeating: 5.0, count: 9)
        XCTAssertEqual(MannWhitneyTest.test(constant, constant).pValue, 1)
    }

    func testSwappingTheSamplesKeepsThePValueAndMirrorsU() {
        let x = [1.1, 3.4, 2.2, 5.0]
        let y = [2.5, 4.1, 6.3, 7.7, 0.9]
        let forward = MannWhitneyTest.test(x, y)
        let backward = MannWhitneyTest.test(y, x)
        XCTAssertEqual(forward.pValue, backward.pValue, accuracy: 1e-15)
        XCTAssertEqual(forward.u + backward.u, Double(x.count * y.count))
    }

    func testMidRanksShareTiedPlaces() {
        let ranking = Ranking([10, 20, 20, 5, 20])
        XCTAssertEqual(ranking.ranks, [2, 4, 4, 1, 4])
        XCTAssertEqual(ranking.tieSizes.sorted(), [1, 1, 3])
    }
}
