/// The segments of one customer, per category, as one fetch returned them.
///
/// The lists keep the server's order and duplicates; that is what callbacks receive. Keys that differ
/// only in case (or `merchandise` / `merchandising`) are merged into one category.
public struct SegmentsResponse: Hashable, Sendable {
    /// Segments per category.
    public var categories: [SegmentCategory: [Segment]]

    /// Creates a response.
    public init(categories: [SegmentCategory: [Segment]] = [:]) {
        self.categories = categories
    }

    /// Creates a response from wire keys, merging keys that name the same category.
    public init(wireCategories: [String: [Segment]]) {
        var merged: [SegmentCategory: [Segment]] = [:]
        for (key, segments) in wireCategories {
            merged[SegmentCategory(name: key), default: []].append(contentsOf: segments)
        }
        self.categories = merged
    }

    /// The segments of `category`, or `[]` if the response does not name it.
    public subscript(category: SegmentCategory) -> [Segment] { categories[category] ?? [] }
}
