/// Identifies one subscription made with ``ReportingSegmentsManager/subscribe(_:)``; pass it to
/// ``ReportingSegmentsManager/unsubscribe(_:)``.
public struct ReportingSubscription: Sendable, Hashable {
    let id: UInt64
}
