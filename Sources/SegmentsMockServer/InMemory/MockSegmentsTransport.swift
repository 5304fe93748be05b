import RealtimeSegments

/// A `SegmentsTransport` that calls a ``SegmentsBackend`` directly: no sockets, the same model
/// and the same faults as ``SegmentsMockHTTPServer``, for tests and the benchmark harness.
///
/// Each call counts a request on its ``MockEndpoint`` (`trackEvents` with one event is
/// ``MockEndpoint/trackEvent``, with several ``MockEndpoint/trackBatch``; an empty list is a no-op),
/// draws its fault decision, then checks the project and the credentials, then the request's content
/// with the HTTP server's rules (empty customer ids or event type, a cookie among the external ids:
/// `SegmentsError.unexpectedStatus(_:)` 400, as the server's 400 would be), then applies the call
/// to the backend. A call that fails leaves the model unchanged, except a batch (several events):
/// as on the server's batch endpoint, its valid events are applied and each invalid one fails
/// alone, reported as `SegmentsError.partialUpload(answered:refused:then:)` (what the HTTP
/// transport reports for that answer).
///
/// Faults become the errors the HTTP transport would report:
/// - error status → `SegmentsError.unauthorized(status:)` (401/403), `SegmentsError.notFound`
///   (404), `SegmentsError.rateLimited` (429), `SegmentsError.serverError(status:)` (5xx),
///   `SegmentsError.unexpectedStatus(_:)` otherwise;
/// - latency → a `Task.sleep` before the outcome;
/// - hang → a sleep of the profile's `maxHang`, then `SegmentsError.timeout`;
/// - malformed or truncated body → `SegmentsError.malformedResponse(_:)`;
/// - reset → `SegmentsError.connectionFailed(_:)` ("connection reset").
///
/// Cancelling the calling task during a latency or hang sleep ends the call with
/// `SegmentsError.timeout` (the client gave up), without touching the model.
///
/// It also answers Optimizely-style qualified-segments queries (`QualifiedSegmentsTransport`),
/// through the HTTP server's GraphQL execution; see
/// ``fetchQualifiedSegments(_:apiKey:)``.
///
/// Threading: every method may be called from any thread, concurrently.
public final class MockSegmentsTransport: SegmentsTransport {
    /// The backend requests go to.
    public let backend: SegmentsBackend
    private let injector: FaultInjector

    /// Creates a transport to `backend` that injects `faults`.
    public init(backend: SegmentsBackend, faults: FaultPlan = .none) {
        self.backend = backend
        self.injector = FaultInjector(plan: faults)
    }

    /// The fault plan in force.
    public var faultPlan: FaultPlan { injector.plan }

    /// Replaces the fault plan; every endpoint's random stream restarts from the new seed.
    /// ``faultCounts`` keeps counting.
    public func setFaultPlan(_ plan: FaultPlan) { injector.replacePlan(plan) }

    /// The faults injected so far, per endpoint and kind.
    public var faultCounts: FaultCounts { injector.counts }

    // MARK: SegmentsTransport

    public func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        guard !events.isEmpty else { return }
        guard events.count > 1 else {
            try await admit(.trackEvent, context)
            try validate { () throws(RequestValidation.Rejection) in try RequestValidation.validate(events[0]) }
            guard backend.trackEvents(events, projectToken: context.projectToken) else { throw .notFound }
            return
        }
        // A batch, as the HTTP server's batch endpoint answers it: an invalid event fails alone.
        try await admit(.trackBatch, context)
        var valid: [TrackedEvent] = []
        valid.reserveCapacity(events.count)
        var refused: [CommandRefusal] = []
        for (index, event) in events.enumerated() {
            do {
                try RequestValidation.validate(event)
                valid.append(event)
            } catch {
                refused.append(CommandRefusal(index: index, reason: error.reason))
            }
        }
        guard backend.trackEvents(valid, projectToken: context.projectToken) else { throw .notFound }
        if !refused.isEmpty { throw .partialUpload(answered: events.count, refused: refused, then: nil) }
    }

    public func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        try await admit(.trackCustomer, context)
        try validate { () throws(RequestValidation.Rejection) in try RequestValidation.validate(update) }
        guard backend.identify(update, projectToken: context.projectToken) else { throw .notFound }
    }

    public func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        try await admit(.linkIds, context)
        try validate { () throws(RequestValidation.Rejection) in
            try RequestValidation.validate(cookie: cookie, externalIds: externalIds)
        }
        guard backend.linkIds(cookie: cookie, externalIds: externalIds, projectToken: context.projectToken) else {
            throw .notFound
        }
    }

    /// `true`: a call takes the backend's lock only briefly, and waits (a hang fault) by suspending.
    public var neverBlocks: Bool { true }

    public func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError)
        -> SegmentsResponse
    {
        try await admit(.fetchSegments, context)
        // The HTTP server's 400 for a missing cookie.
        guard !cookie.isEmpty else { throw .unexpectedStatus(400) }
        guard let response = backend.segments(forCookie: cookie, projectToken: context.projectToken) else {
            throw .notFound
        }
        return response
    }

    // MARK: Admission

    /// Counts the request, carries out its fault decision and checks project and credentials;
    /// returns only when the request may reach the model.
    private func admit(_ endpoint: MockEndpoint, _ context: SegmentsRequestContext) async throws(SegmentsError) {
        switch try await drawFault(endpoint, cancelled: .timeout) {
        case .pass:
            break
        case .error(let status):
            throw .forMockStatus(status)
        case .hang(let limit):
            try await sleep(for: limit, cancelled: .timeout)
            throw .timeout
        case .malformed(let variant):
            throw .malformedResponse("mock fault: body of the wrong shape (variant \(variant))")
        case .truncated:
            throw .malformedResponse("mock fault: body truncated in the middle")
        case .reset:
            throw .connectionFailed("connection reset")
        }
        guard let project = backend.project(token: context.projectToken) else { throw .notFound }
        guard project.accepts(context.authorization) else { throw .unauthorized(status: 401) }
    }

    /// Runs a content check; a rejection is what the HTTP transport reports for the server's 400.
    private func validate(_ check: () throws(RequestValidation.Rejection) -> Void) throws(SegmentsError) {
        do {
            try check()
        } catch {
            throw .unexpectedStatus(400)
        }
    }

    // MARK: Faults (shared with the qualified-segments extension)

    /// Counts a request on `endpoint`, draws its fault decision and sleeps its latency; returns the
    /// outcome, which the caller maps to its own errors. A cancelled sleep throws `cancelled`.
    func drawFault(_ endpoint: MockEndpoint, cancelled: SegmentsError) async throws(SegmentsError)
        -> FaultDecision.Outcome
    {
        backend.recordRequest(endpoint)
        let decision = injector.decide(endpoint)
        if let delay = decision.delay { try await sleep(for: delay, cancelled: cancelled) }
        return decision.outcome
    }

    /// Sleeps; a cancelled caller gave up waiting, which a client reports as `cancelled` (the
    /// segments API's `SegmentsError.timeout`, qualified segments' `"network error"`).
    func sleep(for duration: Duration, cancelled: SegmentsError) async throws(SegmentsError) {
        do {
            try await Task.sleep(for: duration)
        } catch {
            throw cancelled
        }
    }
}
