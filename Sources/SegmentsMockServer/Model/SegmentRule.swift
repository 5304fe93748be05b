import RealtimeSegments

/// A real-time segment definition: a customer belongs to ``segment`` (in ``category``) once they
/// have tracked ``entersAfter`` events, and leaves it on a ``leavesOn`` event.
///
/// Rules are evaluated on every tracked event, in event order. The count is of events since the
/// rule was added or since the customer last left, so after a leave, entering again takes
/// `entersAfter.count` more events. An event whose type is ``leavesOn`` resets the count and does
/// not count towards entering, even if it is also the entering type.
public struct SegmentRule: Sendable, Hashable {
    /// The category the segment is reported under.
    public var category: SegmentCategory
    /// The segment customers enter.
    public var segment: Segment
    /// When a customer enters.
    public var entersAfter: EventThreshold
    /// The event type that removes a customer from the segment, or `nil` to stay forever.
    public var leavesOn: String?

    /// Creates a rule.
    public init(category: SegmentCategory, segment: Segment, entersAfter: EventThreshold, leavesOn: String? = nil) {
        self.category = category
        self.segment = segment
        self.entersAfter = entersAfter
        self.leavesOn = leavesOn
    }

    /// Creates a rule with the threshold spelled as a tuple: `entersAfter: ("view_item", 3)`.
    public init(
        category: SegmentCategory, segment: Segment, entersAfter: (eventType: String, count: Int), leavesOn: String? = nil
    ) {
        self.init(
            category: category, segment: segment,
            entersAfter: EventThreshold(eventType: entersAfter.eventType, count: entersAfter.count),
            leavesOn: leavesOn)
    }
}
