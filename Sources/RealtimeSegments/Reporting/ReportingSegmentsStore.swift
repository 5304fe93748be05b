/// Every visitor's reporting segments in memory, behind striped locks.
///
/// A visitor's read-modify-write runs entirely under its stripe's lock, so concurrent setters of
/// one visitor never lose an update, while setters of visitors on other stripes never wait for each
/// other. No lock is ever held during I/O: persistence takes the dirty visitors' values out
/// (``takeDirty()``) and writes them afterwards.
///
/// Threading: every method may be called from any thread.
final class ReportingSegmentsStore: Sendable {
    private struct Stripe {
        var values: [String: ReportingSegments] = [:]
        /// Visitors changed since the last ``takeDirty()`` (only when persisting).
        var dirty: Set<String> = []
    }

    /// Number of independent locks.
    private static let stripeCount = 64

    private let stripes: [Locked<Stripe>]
    private let tracksDirty: Bool
    /// Runs inside ``update(_:_:whileLocked:)`` after the change, under the visitor's lock (tests
    /// hold a setter there to show another waits for it).
    private let changedForTesting: (@Sendable () -> Void)?

    /// - Parameter tracksDirty: record changed visitors for ``takeDirty()`` (set when a state directory exists).
    init(tracksDirty: Bool, changedForTesting: (@Sendable () -> Void)? = nil) {
        stripes = (0..<Self.stripeCount).map { _ in Locked(Stripe()) }
        self.tracksDirty = tracksDirty
        self.changedForTesting = changedForTesting
    }

    private func stripe(_ visitorId: String) -> Locked<Stripe> {
        // `hashValue` is seeded per process, which is fine: stripes only live in memory.
        stripes[Int(UInt(bitPattern: visitorId.hashValue) % UInt(stripes.count))]
    }

    /// The visitor's segments (empty for a visitor never set).
    func segments(of visitorId: String) -> ReportingSegments {
        stripe(visitorId).withLock { $0.values[visitorId] } ?? ReportingSegments()
    }

    /// Applies `change` to the visitor's segments atomically, then runs `whileLocked` with the new
    /// value before the lock is released, so that what it does (publishing the event) happens in
    /// the same order as the changes. `whileLocked` must not block or call user code.
    func update(
        _ visitorId: String, _ change: (inout ReportingSegments) -> Void, whileLocked: (ReportingSegments) -> Void
    ) {
        let tracksDirty = tracksDirty
        stripe(visitorId).withLock { stripe in
            // In place: the dictionary's slot is passed inout, so an append to `customSegments`
            // mutates the stored array without a copy (when no event holds it).
            func changeAndPublish(_ segments: inout ReportingSegments) {
                change(&segments)
                changedForTesting?()
                whileLocked(segments)
            }
            changeAndPublish(&stripe.values[visitorId, default: ReportingSegments()])
            if tracksDirty { stripe.dirty.insert(visitorId) }
        }
    }

    /// Marks visitors dirty again after their write failed, so the next ``takeDirty()`` retries
    /// them with their latest value.
    func markDirty(_ visitorIds: [String]) {
        guard tracksDirty else { return }
        for visitorId in visitorIds {
            stripe(visitorId).withLock { _ = $0.dirty.insert(visitorId) }
        }
    }

    /// Stores restored segments (not marked dirty: they are already on disk).
    func restore(_ entries: [(visitorId: String, segments: ReportingSegments)]) {
        for entry in entries {
            stripe(entry.visitorId).withLock { $0.values[entry.visitorId] = entry.segments }
        }
    }

    /// The latest value of every visitor changed since the previous call, and clears the marks.
    func takeDirty() -> [(visitorId: String, segments: ReportingSegments)] {
        var taken: [(visitorId: String, segments: ReportingSegments)] = []
        for stripe in stripes {
            stripe.withLock { stripe in
                guard !stripe.dirty.isEmpty else { return }
                for visitorId in stripe.dirty {
                    if let segments = stripe.values[visitorId] { taken.append((visitorId, segments)) }
                }
                stripe.dirty.removeAll(keepingCapacity: true)
            }
        }
        return taken
    }

    /// Number of visitors with segments.
    var visitorCount: Int { stripes.reduce(0) { $0 + $1.withLock { $0.values.count } } }
}
