/// The growth of a latency distribution between two samples, as values a swift-metrics `Recorder`
/// takes one at a time: how ``RunMetrics`` feeds an export backend (OTLP) whose histograms, like
/// every swift-metrics backend's, only take single values while a scenario's distributions arrive
/// as bucket totals.
///
/// Each bucket's new values are recorded at one value inside that bucket of
/// ``LatencyBuckets/boundsNanoseconds``, so a backend with the same bounds counts exactly what the
/// Prometheus histogram shows; the values are placed so that their sum is the growth of the sum
/// (as near as the buckets allow).
public struct LatencyReplay: Sendable, Equatable {
    /// One value, in seconds, to record `count` times.
    public struct Entry: Sendable, Equatable {
        /// The value in seconds.
        public var seconds: Double
        /// How many times to record it.
        public var count: UInt64
    }

    /// What to record, ascending by bucket.
    public var entries: [Entry]

    /// The replay of `new`'s growth over `previous` (`nil`: nothing was recorded yet). A bucket
    /// whose count shrank adds nothing (a histogram only grows); neither does a shrunk sum.
    public init(from previous: LatencyBucketCounts?, to new: LatencyBucketCounts) {
        let bounds = LatencyBuckets.boundsNanoseconds
        var grown: [(index: Int, count: UInt64)] = []
        for (index, count) in new.counts.enumerated() {
            let before = previous.map { index < $0.counts.count ? $0.counts[index] : 0 } ?? 0
            if count > before { grown.append((index, count - before)) }
        }
        guard !grown.isEmpty else {
            entries = []
            return
        }
        // A bucket's values lie in (low, high]; the +Inf bucket has no upper bound.
        func range(_ index: Int) -> (low: Double, high: Double) {
            let low = index == 0 ? 0 : Double(bounds[index - 1])
            return (low, index < bounds.count ? Double(bounds[index]) : .infinity)
        }
        var values = grown.map { item -> Double in
            let (low, high) = range(item.index)
            return high.isFinite ? (low + high) / 2 : low * LatencyBuckets.growthFactor
        }
        let target = max(0, new.sumNanoseconds - (previous?.sumNanoseconds ?? 0))
        let placed = zip(values, grown).reduce(0.0) { $0 + $1.0 * Double($1.1.count) }
        let residual = target - placed
        // Move each bucket's value towards the residual in proportion to its room to move, never
        // onto or past a bound (kept 1 % inside), so the buckets stay exactly as counted.
        let room: [Double] = zip(values, grown).map { value, item in
            let (low, high) = range(item.index)
            let gap = residual > 0 ? high - value : value - low
            return gap * 0.99 * Double(item.count)
        }
        let totalRoom = room.reduce(0, +)
        if residual != 0, totalRoom > 0 {
            let moved = totalRoom.isFinite ? min(abs(residual), totalRoom) : abs(residual)
            for index in values.indices where room[index] > 0 {
                let share = totalRoom.isFinite ? moved * room[index] / totalRoom : (room[index].isFinite ? 0 : moved)
                values[index] += (residual > 0 ? share : -share) / Double(grown[index].count)
            }
        }
        entries = zip(values, grown).map { Entry(seconds: $0 / 1e9, count: $1.count) }
    }
}
