import Dispatch
import RealtimeSegments
import RealtimeSegmentsTesting

/// An in-memory transport behind one that keeps the default `neverBlocks` (`false`), as a transport
/// an app writes does. With `blockingFetches`, each fetch signals `fetchEntered` and then blocks its
/// thread until `release` is signalled, as a synchronous HTTP client would.
final class MayBlockTransport: SegmentsTransport {
    let inner: InMemorySegmentsTransport
    let fetchEntered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let blockingFetches: Bool

    init(_ inner: InMemorySegmentsTransport = InMemorySegmentsTransport(expectedProjectToken: Fixture.token), blockingFetches: Bool = false) {
        self.inner = inner
        self.blockingFetches = blockingFetches
    }

    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.trackEvents(events, context: context)
    }

    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        try await inner.identifyCustomer(update, context: context)
    }

    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError) {
        try await inner.linkCustomerIds(cookie: cookie, externalIds: externalIds, context: context)
    }

    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        if blockingFetches {
            fetchEntered.signal()
            release.wait()
        }
        return try await inner.fetchSegments(cookie: cookie, context: context)
    }
}
