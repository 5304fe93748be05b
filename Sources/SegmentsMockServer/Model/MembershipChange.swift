import RealtimeSegments

/// One change of a customer's segments in one category, stamped when the backend made it.
///
/// The harness compares ``changedAt`` with the time a callback saw the new list to measure
/// server change → callback latency. A change is recorded when the *set* of segments differs
/// (order and duplicates ignored), the same rule the engine uses to decide what changed.
public struct MembershipChange: Sendable, Hashable {
    /// The project the customer belongs to.
    public var projectToken: String
    /// The customer's primary cookie when the change happened (their first cookie still linked to
    /// them), or `""` for a customer known only by hard ids.
    public var cookie: String
    /// The backend's stable key of the customer (survives cookie and id links).
    public var customerKey: UInt64
    /// The category that changed.
    public var category: SegmentCategory
    /// The new full list of the category.
    public var segments: [Segment]
    /// Global, strictly increasing across all projects and customers; the first change is 1.
    public var version: UInt64
    /// The backend clock (monotonic nanoseconds) when the change was made.
    public var changedAt: UInt64

    /// Creates a change record.
    public init(
        projectToken: String, cookie: String, customerKey: UInt64, category: SegmentCategory, segments: [Segment],
        version: UInt64, changedAt: UInt64
    ) {
        self.projectToken = projectToken
        self.cookie = cookie
        self.customerKey = customerKey
        self.category = category
        self.segments = segments
        self.version = version
        self.changedAt = changedAt
    }
}
