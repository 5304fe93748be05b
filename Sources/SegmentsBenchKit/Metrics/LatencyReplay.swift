/// The growth of a latency distribution between two samples, as values a swift-metrics `Recorder`
/// takes one at a time: how ``RunMetrics`` feeds an export backend (OTLP) whose histograms, like
/// every swift-metrics backend's, only take single values while a scenario's distributions arrive
/// as bucket totals.
///
/// Each bucket's new values are recorded at one value inside that bucket of
/// ``LatencyBuckets/boundsNanoseconds``, so a backend with the same bounds counts exactly what the
/// Prometheus histogram shows; the values are placed so that their sum is the growth of the sum
/// (as near as the buckets allow). A new least or greatest value (``LatencyBucketCounts/minNanoseconds``,
/// ``LatencyBucketCounts/maxNanoseconds``) is recorded as itself, so a backend that reports the
/// least and greatest value recorded (OTLP's data points do) reports true ones.
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
        // A bucket's values lie in (low, high]; the +Inf bucket has no upper bound. Every value lies
        // within the least and greatest recorded too, where those are known.
        func range(_ index: Int) -> (low: Double, high: Double) {
            let low = index == 0 ? 0 : Double(bounds[index - 1])
            let high = index < bounds.count ? Double(bounds[index]) : .infinity
            return (max(low, new.minNanoseconds ?? low), min(high, new.maxNanoseconds ?? high))
        }
        // New extremes, each recorded as itself: one value of its bucket's growth.
        var pinned: [[Double]] = Array(repeating: [], count: grown.count)
        func pin(_ value: Double?, if isNew: (Double) -> Bool) {
            guard let value, isNew(value),
                  let slot = grown.firstIndex(where: { $0.index == LatencyBuckets.index(of: UInt64(value)) }),
                  UInt64(pinned[slot].count) < grown[slot].count, !pinned[slot].contains(value)
            else { return }
            pinned[slot].append(value)
        }
        pin(new.minNanoseconds) { $0 < (previous?.minNanoseconds ?? .infinity) }
        pin(new.maxNanoseconds) { $0 > (previous?.maxNanoseconds ?? -.infinity) }
        let free = grown.indices.map { grown[$0].count - UInt64(pinned[$0].count) }
        var values = grown.map { item -> Double in
            let (low, high) = range(item.index)
            return high.isFinite ? (low + high) / 2 : low * LatencyBuckets.growthFactor
        }
        let target = max(0, new.sumNanoseconds - (previous?.sumNanoseconds ?? 0))
        let placed = grown.indices.reduce(0.0) { $0 + values[$1] * Double(free[$1]) + pinned[$1].reduce(0, +) }
        let residual = target - placed
        // Move each bucket's free value towards the residual in proportion to its room to move,
        // never onto or past a bound (kept 1 % inside), so the buckets stay exactly as counted.
        let room: [Double] = grown.indices.map { slot in
            let (low, high) = range(grown[slot].index)
            let gap = residual > 0 ? high - values[slot] : values[slot] - low
            return gap * 0.99 * Double(free[slot])
        }
        let totalRoom = room.reduce(0, +)
        if residual != 0, totalRoom > 0 {
            let moved = totalRoom.isFinite ? min(abs(residual), totalRoom) : abs(residual)
            for index in values.indices where room[index] > 0 {
                let share = totalRoom.isFinite ? moved * room[index] / totalRoom : (room[index].isFinite ? 0 : moved)
                values[index] += (residual > 0 ? share : -share) / Double(free[index])
            }
        }
        entries = grown.indices.flatMap { slot -> [Entry] in
            let extremes = pinned[slot].map { Entry(seconds: $0 / 1e9, count: 1) }
            return free[slot] > 0 ? [Entry(seconds: values[slot] / 1e9, count: free[slot])] + extremes : extremes
        }
    }
}
