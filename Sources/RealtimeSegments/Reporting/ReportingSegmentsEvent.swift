/// Published to ``ReportingSegmentsManager`` subscribers once per setter call
/// (``ReportingVisitor/setDefaultSegments(_:)``, ``ReportingVisitor/setCustomSegments(_:)``).
public struct ReportingSegmentsEvent: Sendable, Hashable {
    /// The visitor whose segments were set.
    public var visitorId: String
    /// The visitor's complete segments right after that call.
    public var segments: ReportingSegments

    /// Creates an event.
    public init(visitorId: String, segments: ReportingSegments) {
        self.visitorId = visitorId
        self.segments = segments
    }
}
