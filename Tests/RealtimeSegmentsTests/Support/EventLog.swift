@testable import RealtimeSegments

/// Records the reporting segments events a subscriber receives, in order.
final class EventLog: Sendable {
    private let events = Locked<[ReportingSegmentsEvent]>([])
    func append(_ event: ReportingSegmentsEvent) { events.withLock { $0.append(event) } }
    var all: [ReportingSegmentsEvent] { events.withLock { $0 } }
}
