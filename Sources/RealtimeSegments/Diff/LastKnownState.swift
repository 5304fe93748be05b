/// What the engine last told the callbacks: the customer it belonged to and, per category, the
/// segments as fetched (kept for persistence and compared with the next fetch's).
///
/// It holds the response's own dictionary: making a state allocates nothing. Categories are
/// compared when a state is diffed against the next one (``changedCategories(from:to:using:)``),
/// in order first and as sets only when that does not settle it (``SegmentSetComparer``).
@_spi(Benchmarks)
public struct LastKnownState: Sendable {
    /// The customer ids (cookie included) the state was fetched for.
    var customerIds: [String: String]
    /// Segments per category, in the order the server listed them.
    var categories: [SegmentCategory: [Segment]]

    /// The state of `customerIds` after `response`.
    @_spi(Benchmarks)
    public init(customerIds: [String: String], response: SegmentsResponse) {
        self.customerIds = customerIds
        self.categories = response.categories
    }

    /// The categories of `next` that changed relative to `previous`, each once, in no particular
    /// order, comparing with `comparer`'s buffers.
    ///
    /// With no previous state, or one that belongs to other customer ids, every category of the
    /// response is changed, and so is every category of `shown` (those whose callbacks were last
    /// given non-empty segments) that the response lacks: after a switch, the previous customer's
    /// segments must not stay on screen. Otherwise a category is changed iff it appears,
    /// disappears, or its set of (id, segmentationId) pairs differs (order and duplicates ignored).
    ///
    /// An array, not a set: a response has a handful of categories, and each comes from one
    /// dictionary's keys or is looked up as missing from them, so none can come twice.
    @_spi(Benchmarks)
    public static func changedCategories(
        from previous: LastKnownState?,
        to next: LastKnownState,
        shown: Set<SegmentCategory> = [],
        using comparer: inout SegmentSetComparer
    ) -> [SegmentCategory] {
        guard let previous, previous.customerIds == next.customerIds else {
            var changed = Array(next.categories.keys)
            for category in shown where next.categories[category] == nil {
                changed.append(category)
            }
            return changed
        }
        var changed: [SegmentCategory] = []
        var carried = 0
        for (category, segments) in next.categories {
            guard let before = previous.categories[category] else {
                changed.append(category)
                continue
            }
            carried += 1
            if !comparer.holdTheSameSet(before, segments) { changed.append(category) }
        }
        // Every previous category is among the next ones when as many were found as there were:
        // the usual unchanged key set then costs no second round of lookups.
        if carried < previous.categories.count {
            for category in previous.categories.keys where next.categories[category] == nil {
                changed.append(category)
            }
        }
        return changed
    }
}
