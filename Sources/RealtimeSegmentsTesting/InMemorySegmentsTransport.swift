import RealtimeSegments

/// A scriptable in-memory backend for tests and examples: no sockets, every call recorded.
///
/// Pass it as the `transport` of a `SegmentsConfiguration` in place of the HTTP transport (it
/// serves qualified segments too). Calls answer at once unless held. Uploads are recorded only
/// when accepted (``trackedEvents``, ``customerUpdates``); fetches, link calls and qualified
/// queries are recorded whether or not they then fail.
///
/// - Segments come from ``setSegments(_:forCookie:)`` (per cookie), else ``defaultResponse``, or
///   from a custom responder closure (``setResponder(_:)``).
/// - Failures are scripted per endpoint with ``failNext(_:with:count:)``.
/// - ``holdFetches()`` makes fetches wait until ``releaseHeldFetches(keepHolding:)``, to put a
///   fetch "in flight" at a chosen moment (customer-switch races); ``heldFetchCount`` tells how
///   many are waiting. ``holdUploads()`` does the same for uploads (events and customer updates).
/// - A request whose project token differs from ``expectedProjectToken`` (when set) fails with
///   `SegmentsError.unauthorized(status:)` 401, as the real server does.
/// - Qualified segments (`QualifiedSegmentsTransport`) come from
///   ``setQualifiedSegments(_:forUser:)`` (per user id), else ``defaultQualifiedSegments``; either
///   way only the names the query asks about are returned, as the server answers only about the
///   requested audiences. Failures are scripted with ``failNext(_:with:count:)`` on
///   ``Endpoint/fetchQualifiedSegments``, and ``holdQualifiedFetches()`` holds requests until
///   ``releaseHeldQualifiedFetches(keepHolding:)``.
///
/// Threading: every method may be called from any thread. Each takes one lock briefly and never
/// blocks: a held call suspends its task, not its thread (``neverBlocks`` is `true`).
public final class InMemorySegmentsTransport: SegmentsTransport, QualifiedSegmentsTransport {
    /// The endpoints, for scripting failures.
    public enum Endpoint: Sendable, Hashable, CaseIterable {
        /// ``InMemorySegmentsTransport/trackEvents(_:context:)``.
        case trackEvents
        /// ``InMemorySegmentsTransport/identifyCustomer(_:context:)``.
        case identifyCustomer
        /// ``InMemorySegmentsTransport/linkCustomerIds(cookie:externalIds:context:)``.
        case linkCustomerIds
        /// ``InMemorySegmentsTransport/fetchSegments(cookie:context:)``.
        case fetchSegments
        /// ``InMemorySegmentsTransport/fetchQualifiedSegments(_:apiKey:)``.
        case fetchQualifiedSegments
    }

    /// A recorded link-ids call.
    public struct LinkCall: Sendable, Hashable {
        /// The cookie the ids were linked to.
        public var cookie: String
        /// The hard ids sent (every id but the cookie).
        public var externalIds: [String: String]

        /// Creates a record.
        public init(cookie: String, externalIds: [String: String]) {
            self.cookie = cookie
            self.externalIds = externalIds
        }
    }

    /// Where held calls of one kind wait: while `holding`, arriving calls park in `held`.
    private struct HoldGate {
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    private struct State {
        var segmentsByCookie: [String: SegmentsResponse] = [:]
        var defaultResponse = SegmentsResponse()
        var responder: (@Sendable (String) -> SegmentsResponse)?
        var failures: [Endpoint: [SegmentsError]] = [:]
        var fetchGate = HoldGate()
        var uploadGate = HoldGate()
        var fetchedCookies: [String] = []
        var linkCalls: [LinkCall] = []
        var trackedEvents: [TrackedEvent] = []
        var trackBatches = 0
        var customerUpdates: [CustomerUpdate] = []
        var contexts: Set<SegmentsRequestContext> = []
        var qualifiedByUser: [String: [String]] = [:]
        var defaultQualified: [String] = []
        var qualifiedQueries: [QualifiedSegmentsQuery] = []
        var qualifiedAPIKeys: [String] = []
        var qualifiedGate = HoldGate()
    }

    private let state = Locked(State())
    /// When set, requests with another project token fail with 401.
    public let expectedProjectToken: String?

    /// Creates an empty backend.
    public init(expectedProjectToken: String? = nil) {
        self.expectedProjectToken = expectedProjectToken
    }

    // MARK: Scripting

    /// Sets the segments returned for `cookie`.
    public func setSegments(_ response: SegmentsResponse, forCookie cookie: String) {
        state.withLock { $0.segmentsByCookie[cookie] = response }
    }

    /// The segments returned for cookies without their own.
    public var defaultResponse: SegmentsResponse {
        get { state.withLock { $0.defaultResponse } }
        set { state.withLock { $0.defaultResponse = newValue } }
    }

    /// Computes every response from the cookie (takes precedence over stored segments). The
    /// responder runs on the fetching thread, outside the transport's lock: it may read or script
    /// this transport.
    public func setResponder(_ responder: (@Sendable (String) -> SegmentsResponse)?) {
        state.withLock { $0.responder = responder }
    }

    /// Makes the next `count` calls to `endpoint` fail with `error` (none for a count below 1).
    public func failNext(_ endpoint: Endpoint, with error: SegmentsError, count: Int = 1) {
        state.withLock { $0.failures[endpoint, default: []].append(contentsOf: repeatElement(error, count: max(0, count))) }
    }

    /// From now on, fetches wait until ``releaseHeldFetches(keepHolding:)``.
    public func holdFetches() { state.withLock { $0.fetchGate.holding = true } }

    /// Lets every waiting fetch continue; new fetches are held only if `keepHolding`.
    public func releaseHeldFetches(keepHolding: Bool = false) { release(\.fetchGate, keepHolding: keepHolding) }

    /// Number of fetches currently waiting.
    public var heldFetchCount: Int { state.withLock { $0.fetchGate.held.count } }

    /// From now on, uploads (``trackEvents(_:context:)``, ``identifyCustomer(_:context:)``) wait
    /// until ``releaseHeldUploads(keepHolding:)``, before they are accepted or fail.
    public func holdUploads() { state.withLock { $0.uploadGate.holding = true } }

    /// Lets every waiting upload continue; new uploads are held only if `keepHolding`.
    public func releaseHeldUploads(keepHolding: Bool = false) { release(\.uploadGate, keepHolding: keepHolding) }

    /// Number of uploads currently waiting.
    public var heldUploadCount: Int { state.withLock { $0.uploadGate.held.count } }

    /// Sets the qualified segments of `userId` (the names returned when asked about them).
    public func setQualifiedSegments(_ segments: [String], forUser userId: String) {
        state.withLock { $0.qualifiedByUser[userId] = segments }
    }

    /// The qualified segments of users without their own (default none).
    public var defaultQualifiedSegments: [String] {
        get { state.withLock { $0.defaultQualified } }
        set { state.withLock { $0.defaultQualified = newValue } }
    }

    /// From now on, qualified fetches wait until ``releaseHeldQualifiedFetches(keepHolding:)``.
    public func holdQualifiedFetches() { state.withLock { $0.qualifiedGate.holding = true } }

    /// Lets every waiting qualified fetch continue; new ones are held only if `keepHolding`.
    public func releaseHeldQualifiedFetches(keepHolding: Bool = false) {
        release(\.qualifiedGate, keepHolding: keepHolding)
    }

    /// Number of qualified fetches currently waiting.
    public var heldQualifiedFetchCount: Int { state.withLock { $0.qualifiedGate.held.count } }

    // MARK: Recordings

    /// Every qualified-segments query, in call order (held ones included).
    public var qualifiedQueries: [QualifiedSegmentsQuery] { state.withLock { $0.qualifiedQueries } }
    /// Number of qualified-segments requests.
    public var qualifiedFetchCount: Int { state.withLock { $0.qualifiedQueries.count } }
    /// The API key of every qualified-segments request, in call order.
    public var qualifiedAPIKeys: [String] { state.withLock { $0.qualifiedAPIKeys } }

    /// Cookies of every fetch, in call order (held fetches included).
    public var fetchedCookies: [String] { state.withLock { $0.fetchedCookies } }
    /// Number of fetch calls.
    public var fetchCount: Int { state.withLock { $0.fetchedCookies.count } }
    /// Every link-ids call, in order.
    public var linkCalls: [LinkCall] { state.withLock { $0.linkCalls } }
    /// Every event accepted, in upload order.
    public var trackedEvents: [TrackedEvent] { state.withLock { $0.trackedEvents } }
    /// Number of successful event uploads (batches).
    public var trackBatchCount: Int { state.withLock { $0.trackBatches } }
    /// Every customer update accepted, in order.
    public var customerUpdates: [CustomerUpdate] { state.withLock { $0.customerUpdates } }
    /// Every distinct request context seen.
    public var contexts: Set<SegmentsRequestContext> { state.withLock { $0.contexts } }

    // MARK: SegmentsTransport

    /// Records `events` (``trackedEvents``), or fails with a scripted error or a wrong token; waits
    /// first while uploads are held.
    public func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        await passIfHolding(\.uploadGate)
        try state.withLock { state throws(SegmentsError) in
            try Self.admit(&state, .trackEvents, context, expectedProjectToken)
            state.trackedEvents.append(contentsOf: events)
            state.trackBatches += 1
        }
    }

    /// Records `update` (``customerUpdates``), or fails with a scripted error or a wrong token;
    /// waits first while uploads are held.
    public func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        await passIfHolding(\.uploadGate)
        try state.withLock { state throws(SegmentsError) in
            try Self.admit(&state, .identifyCustomer, context, expectedProjectToken)
            state.customerUpdates.append(update)
        }
    }

    /// Records the call (``linkCalls``), or fails with a scripted error or a wrong token.
    public func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        try state.withLock { state throws(SegmentsError) in
            state.linkCalls.append(LinkCall(cookie: cookie, externalIds: externalIds))
            try Self.admit(&state, .linkCustomerIds, context, expectedProjectToken)
        }
    }

    /// `true`: a held call suspends until it is released, and locks are held only briefly.
    public var neverBlocks: Bool { true }

    /// The response set for `cookie` (or the responder's, or ``defaultResponse``); waits while
    /// fetches are held; fails with a scripted error or a wrong token.
    public func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError)
        -> SegmentsResponse
    {
        let mustWait = state.withLock { state in
            state.fetchedCookies.append(cookie)
            return state.fetchGate.holding
        }
        if mustWait { await pass(\.fetchGate) }
        let (responder, stored) = try state.withLock { state throws(SegmentsError) in
            try Self.admit(&state, .fetchSegments, context, expectedProjectToken)
            return (state.responder, state.segmentsByCookie[cookie] ?? state.defaultResponse)
        }
        // The responder is the app's code: called outside the lock, it may use this transport.
        return responder?(cookie) ?? stored
    }

    // MARK: QualifiedSegmentsTransport

    /// The qualified segments set for the query's user among those it asks about; waits while
    /// qualified fetches are held; fails with a scripted error.
    public func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError)
        -> [String]
    {
        let mustWait = state.withLock { state in
            state.qualifiedQueries.append(query)
            state.qualifiedAPIKeys.append(apiKey)
            return state.qualifiedGate.holding
        }
        if mustWait { await pass(\.qualifiedGate) }
        return try state.withLock { state throws(SegmentsError) in
            try Self.throwScriptedFailure(&state, .fetchQualifiedSegments)
            let asked = Set(query.segmentsToCheck)
            return (state.qualifiedByUser[query.userValue] ?? state.defaultQualified).filter { asked.contains($0) }
        }
    }

    private static func admit(
        _ state: inout State, _ endpoint: Endpoint, _ context: SegmentsRequestContext, _ expectedToken: String?
    ) throws(SegmentsError) {
        state.contexts.insert(context)
        if let expectedToken, context.projectToken != expectedToken {
            throw .unauthorized(status: 401)
        }
        try throwScriptedFailure(&state, endpoint)
    }

    /// Throws (and consumes) the next failure scripted for `endpoint`, if any.
    private static func throwScriptedFailure(_ state: inout State, _ endpoint: Endpoint) throws(SegmentsError) {
        if var scripted = state.failures[endpoint], !scripted.isEmpty {
            let error = scripted.removeFirst()
            state.failures[endpoint] = scripted
            throw error
        }
    }

    // MARK: Holding

    /// Waits at `gate` until it is released (returns at once if it no longer holds).
    private func pass(_ gate: WritableKeyPath<State, HoldGate>) async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                guard state[keyPath: gate].holding else { return true }
                state[keyPath: gate].held.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Waits at `gate` only while it holds: a look under the lock, and no suspension otherwise.
    private func passIfHolding(_ gate: WritableKeyPath<State, HoldGate>) async {
        if state.withLock({ $0[keyPath: gate].holding }) { await pass(gate) }
    }

    /// Lets every call waiting at `gate` continue; new ones are held only if `keepHolding`.
    private func release(_ gate: WritableKeyPath<State, HoldGate>, keepHolding: Bool) {
        let held = state.withLock { state in
            state[keyPath: gate].holding = keepHolding
            defer { state[keyPath: gate].held = [] }
            return state[keyPath: gate].held
        }
        for continuation in held { continuation.resume() }
    }
}
