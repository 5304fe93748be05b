/// "After `count` events of type `eventType`": when a ``SegmentRule`` lets a customer in.
///
/// A struct rather than the `(eventType:count:)` tuple because tuples cannot be `Hashable`; it
/// has the same labels, so `rule.entersAfter.eventType` reads the same.
public struct EventThreshold: Sendable, Hashable {
    /// The event type that counts.
    public var eventType: String
    /// How many events of ``eventType`` it takes; values below 1 count as 1.
    public var count: Int

    /// Creates a threshold.
    public init(eventType: String, count: Int) {
        self.eventType = eventType
        self.count = count
    }

    /// ``count`` clamped to at least 1: a customer is never in a rule's segment before tracking
    /// anything, which keeps "an unknown cookie has no segments" true.
    var effectiveCount: Int { max(count, 1) }
}
