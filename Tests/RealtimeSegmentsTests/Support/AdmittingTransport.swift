import RealtimeSegments
import RealtimeSegmentsTesting

/// An in-memory backend whose event uploads first go through `admit`, which answers for the server
/// (by throwing) or holds the upload (by waiting); what it lets through is stored in ``accepted``.
/// For tests of what the engine does with upload answers.
final class AdmittingTransport: SegmentsTransport {
    let accepted = InMemorySegmentsTransport()
    private let admit: @Sendable ([TrackedEvent]) async throws(SegmentsError) -> Void

    init(admit: @escaping @Sendable ([TrackedEvent]) async throws(SegmentsError) -> Void) {
        self.admit = admit
    }

    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        try await admit(events)
        try await accepted.trackEvents(events, context: context)
    }

    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        try await accepted.identifyCustomer(update, context: context)
    }

    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        try await accepted.linkCustomerIds(cookie: cookie, externalIds: externalIds, context: context)
    }

    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        try await accepted.fetchSegments(cookie: cookie, context: context)
    }
}
