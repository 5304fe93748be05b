/// What the engine last told the callbacks: the customer it belonged to and, per category, the
/// segments (as fetched, for persistence) and their packed set (for diffing).
@_spi(Benchmarks)
public struct LastKnownState: Sendable {
    struct Category: Sendable {
        var segments: [Segment]
        var set: PackedSegmentSet

        init(_ segments: [Segment]) {
            self.segments = segments
            self.set = PackedSegmentSet(segments)
        }
    }

    /// The customer ids (cookie included) the state was fetched for.
    var customerIds: [String: String]
    /// Segments per category.
    var categories: [SegmentCategory: Category]

    @_spi(Benchmarks)
    public init(customerIds: [String: String], response: SegmentsResponse) {
        self.customerIds = customerIds
        self.categories = response.categories.mapValues(Category.init)
    }

    /// The categories of `response` that changed relative to `previous`, for a check of `customerIds`.
    ///
    /// With no previous state, or one that belongs to other customer ids, every category of the
    /// response is changed. Otherwise a category is changed iff it appears, disappears, or its set
    /// of (id, segmentationId) pairs differs (order and duplicates ignored).
    @_spi(Benchmarks)
    public static func changedCategories(
        from previous: LastKnownState?,
        to next: LastKnownState
    ) -> Set<SegmentCategory> {
        guard let previous, previous.customerIds == next.customerIds else {
            return Set(next.categories.keys)
        }
        var changed = Set<SegmentCategory>()
        var carried = 0
        for (category, state) in next.categories {
            guard let before = previous.categories[category] else {
                changed.insert(category)
                continue
            }
            carried += 1
            if before.set != state.set { changed.insert(category) }
        }
        // Every previous category is among the next ones when as many were found as there were:
        // the usual unchanged key set then costs no second round of lookups.
        if carried < previous.categories.count {
            for category in previous.categories.keys where next.categories[category] == nil {
                changed.insert(category)
            }
        }
        return changed
    }
}
