import RealtimeSegments

/// One command of a tracking batch (`POST /track/v2/projects/{token}/batch`), applied in order.
enum TrackingCommand: Sendable, Hashable {
    /// `{"name": "customers/events", "data": <event>}`.
    case event(TrackedEvent)
    /// `{"name": "customers", "data": <customer update>}`.
    case customer(CustomerUpdate)
}
