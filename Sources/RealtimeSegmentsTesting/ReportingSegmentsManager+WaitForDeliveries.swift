import RealtimeSegments

extension ReportingSegmentsManager {
    /// Blocks until every `ReportingSegmentsEvent` published before this call has been handled by
    /// every subscriber's handler.
    ///
    /// Threading: any thread but a subscriber's handler (it would wait for itself).
    public func waitForDeliveries() {
        waitUntilDelivered()
    }
}
