import RealtimeSegments

/// Stamps membership changes with the global version and the clock, and keeps the most recent
/// ones for ``SegmentsBackend/changes(since:)``.
///
/// Not thread-safe: a value owned by ``BackendState``; the clock is called under the backend's lock
/// so that versions and `changedAt` increase together.
struct ChangeLedger: Sendable {
    let clock: @Sendable () -> UInt64
    /// The version of the latest change; 0 before any.
    private(set) var version: UInt64 = 0
    /// Retained changes in version order (so binary-searchable).
    private var log: [MembershipChange] = []

    init(clock: @escaping @Sendable () -> UInt64) { self.clock = clock }

    /// Records a change and returns it.
    mutating func stamp(
        projectToken: String, customer: CustomerRecord, category: SegmentCategory, segments: [Segment]
    ) -> MembershipChange {
        version += 1
        let change = MembershipChange(
            projectToken: projectToken, cookie: customer.primaryCookie, customerKey: customer.key,
            category: category, segments: segments, version: version, changedAt: clock())
        log.append(change)
        // Drop the oldest half in one move rather than one element per change.
        if log.count >= 2 * SegmentsBackend.changeLogCapacity {
            log.removeFirst(log.count - SegmentsBackend.changeLogCapacity)
        }
        return change
    }

    /// Retained changes with a version greater than `version`, oldest first.
    func changes(since version: UInt64) -> [MembershipChange] {
        var low = 0
        var high = log.count
        while low < high {
            let middle = (low + high) / 2
            if log[middle].version > version { high = middle } else { low = middle + 1 }
        }
        return Array(log[low...])
    }
}
