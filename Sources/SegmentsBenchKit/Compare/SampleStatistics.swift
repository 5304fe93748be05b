/// Order statistics of a sample of measurements: the median and linearly interpolated quantiles.
///
/// Pure functions on values; callable from any thread.
public enum SampleStatistics {
    /// The median of `values`; `nan` for an empty sample.
    public static func median(_ values: [Double]) -> Double {
        quantile(values.sorted(), 0.5)
    }

    /// The `q`-quantile (`0 ... 1`) of the already sorted `sorted`, interpolated linearly between
    /// the two nearest order statistics (numpy's default, Hyndman and Fan's type 7); `nan` for an
    /// empty sample. Next to an infinite order statistic it is that infinity (`nan` only between
    /// −∞ and +∞).
    public static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let position = min(max(q, 0), 1) * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        let (below, above) = (sorted[lower], sorted[upper])
        if fraction == 0 || below == above { return below }
        // An infinite end outweighs any finite share of the other (∞ − ∞ would be NaN).
        if below.isInfinite || above.isInfinite {
            return below.isInfinite && above.isInfinite ? .nan : (below.isInfinite ? below : above)
        }
        return below + (above - below) * fraction
    }

    /// `candidate / baseline`, with `0 / 0` read as 1 (no change) and `x / 0` as infinity.
    public static func ratio(_ candidate: Double, to baseline: Double) -> Double {
        if baseline == 0 { return candidate == 0 ? 1 : .infinity }
        return candidate / baseline
    }
}
