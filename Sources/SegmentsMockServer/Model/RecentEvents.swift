import RealtimeSegments

/// The last ``capacity`` events of one customer, oldest first, for inspection.
///
/// Appends are amortized O(1): the storage grows to twice the capacity and then drops the oldest
/// half in one move, instead of shifting the array on every event.
struct RecentEvents: Sendable {
    /// Events kept per customer.
    static let capacity = 1000

    private var storage: [TrackedEvent] = []

    /// Appends `event`, forgetting the oldest beyond the capacity.
    mutating func append(_ event: TrackedEvent) {
        storage.append(event)
        if storage.count >= 2 * Self.capacity {
            storage.removeFirst(storage.count - Self.capacity)
        }
    }

    /// The retained events, oldest first (at most ``capacity``).
    var events: [TrackedEvent] { Array(storage.suffix(Self.capacity)) }
}
