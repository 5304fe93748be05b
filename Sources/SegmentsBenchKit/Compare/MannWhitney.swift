import Foundation

/// The two-sided Mann-Whitney U test (Wilcoxon rank-sum test) of two independent samples: how
/// likely samples this far apart in rank are when both come from the same distribution.
///
/// It follows SciPy's `scipy.stats.mannwhitneyu(x, y, alternative="two-sided")`:
/// - ``Result/u`` is the U statistic of the first sample: the number of pairs `(x, y)` with
///   `x > y`, a tie counting one half.
/// - ``Method/exact`` counts the arrangements of ranks exactly (no ties allowed);
///   ``Method/asymptotic`` uses the normal approximation with the tie correction and a continuity
///   correction of one half. Without an explicit method the test is exact when a sample has at
///   most 8 values and there are no ties, asymptotic otherwise (SciPy's `method="auto"`).
///
/// A pure function of its inputs; callable from any thread.
public enum MannWhitneyTest {
    /// How the p-value is computed.
    public enum Method: String, Codable, Sendable {
        /// The exact distribution of U (valid only without ties).
        case exact
        /// The normal approximation, tie- and continuity-corrected.
        case asymptotic
    }

    /// The outcome of one test.
    public struct Result: Codable, Sendable, Hashable {
        /// U of the first sample (see ``MannWhitneyTest``).
        public var u: Double
        /// Two-sided p-value, in `0 ... 1`.
        public var pValue: Double
        /// How ``pValue`` was computed.
        public var method: Method
    }

    /// Tests `x` against `y`.
    ///
    /// - Precondition: both samples are non-empty and contain no NaN; `method` is not
    ///   ``Method/exact`` when the samples share a value.
    public static func test(_ x: [Double], _ y: [Double], method: Method? = nil) -> Result {
        precondition(!x.isEmpty && !y.isEmpty, "Mann-Whitney U needs two non-empty samples")
        precondition(!x.contains(where: \.isNaN) && !y.contains(where: \.isNaN), "Mann-Whitney U cannot rank NaN")
        let ranking = Ranking(x + y)
        let n1 = Double(x.count)
        let n2 = Double(y.count)
        let u1 = ranking.ranks.prefix(x.count).reduce(0, +) - n1 * (n1 + 1) / 2
        let hasTies = ranking.tieSizes.contains { $0 > 1 }
        let chosen = method ?? ((x.count <= 8 || y.count <= 8) && !hasTies ? .exact : .asymptotic)
        precondition(chosen == .asymptotic || !hasTies, "the exact Mann-Whitney distribution assumes no ties")
        let u = max(u1, n1 * n2 - u1)
        let p: Double
        switch chosen {
        case .exact:
            p = 2 * exactUpperTail(u: Int(u.rounded()), n1: x.count, n2: y.count)
        case .asymptotic:
            p = asymptoticTwoSided(u: u, n1: n1, n2: n2, tieSizes: ranking.tieSizes)
        }
        return Result(u: u1, pValue: min(max(p, 0), 1), method: chosen)
    }

    /// `P(U >= u)` under the null hypothesis, from the generating function of U, the Gaussian
    /// binomial coefficient `[n1 + n2 choose m]_q = Π_{i=1…m} (1 − q^(n+i)) / (1 − q^i)` with
    /// `m = min(n1, n2)`, `n = max(n1, n2)`: O(m² · n) work.
    static func exactUpperTail(u: Int, n1: Int, n2: Int) -> Double {
        let m = min(n1, n2)
        let n = max(n1, n2)
        let degree = m * n
        guard u > 0 else { return 1 }
        guard u <= degree else { return 0 }
        var counts = [Double](repeating: 0, count: degree + 1)
        counts[0] = 1
        for i in 1...m {
            // Multiply by (1 − q^(n+i)), then divide by (1 − q^i): the quotient is again a polynomial.
            let up = n + i
            if up <= degree {
                for k in stride(from: degree, through: up, by: -1) { counts[k] -= counts[k - up] }
            }
            for k in i...degree { counts[k] += counts[k - i] }
        }
        let total = counts.reduce(0, +)
        return counts[u...].reduce(0, +) / total
    }

    /// The normal approximation: `z = (U − n1·n2/2 − ½) / σ` with the tie-corrected
    /// `σ² = n1·n2/12 · ((N + 1) − Σ(t³ − t) / (N(N − 1)))`, `p = 2·(1 − Φ(z))`; 1 when every value
    /// is tied (σ = 0).
    static func asymptoticTwoSided(u: Double, n1: Double, n2: Double, tieSizes: [Int]) -> Double {
        let total = n1 + n2
        let tieTerm = tieSizes.reduce(0.0) { sum, t in
            let size = Double(t)
            return sum + size * size * size - size
        }
        let variance = n1 * n2 / 12 * ((total + 1) - (total > 1 ? tieTerm / (total * (total - 1)) : 0))
        guard variance > 0 else { return 1 }
        let z = (u - n1 * n2 / 2 - 0.5) / variance.squareRoot()
        return erfc(z / 2.0.squareRoot())
    }
}

/// Mid-ranks of a pooled sample (tied values share the mean of their ranks) and the sizes of its
/// groups of equal values.
struct Ranking {
    /// The rank of each value, in the input order, starting at 1.
    var ranks: [Double]
    /// The size of each group of equal values (1 for a value that is not tied).
    var tieSizes: [Int]

    init(_ values: [Double]) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var tieSizes: [Int] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && values[order[end]] == values[order[start]] { end += 1 }
            let midRank = Double(start + 1 + end) / 2
            for position in start..<end { ranks[order[position]] = midRank }
            tieSizes.append(end - start)
            start = end
        }
        self.ranks = ranks
        self.tieSizes = tieSizes
    }
}
