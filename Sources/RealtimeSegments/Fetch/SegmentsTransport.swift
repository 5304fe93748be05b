/// Who the engine is talking to: the project and how to authenticate. Passed with every request so
/// one transport can serve several clients.
public struct SegmentsRequestContext: Sendable, Hashable {
    /// The project token (in the URL path).
    public var projectToken: String
    /// The `authorization` header value, or `nil` to send none.
    public var authorization: SegmentsAuthorization?

    /// Creates a context.
    public init(projectToken: String, authorization: SegmentsAuthorization?) {
        self.projectToken = projectToken
        self.authorization = authorization
    }
}

/// How requests authenticate: `authorization: Token <token>` or `authorization: Bearer <token>`.
public enum SegmentsAuthorization: Sendable, Hashable {
    /// `authorization: Token <token>` (a public API key).
    case token(String)
    /// `authorization: Bearer <token>` (a JWT or private key).
    case bearer(String)

    /// The header value.
    public var headerValue: String {
        switch self {
        case .token(let token): "Token \(token)"
        case .bearer(let token): "Bearer \(token)"
        }
    }
}

/// The engine's connection to a segments backend (see SPEC §7 for the HTTP form).
///
/// Implementations: the HTTP transport for production, ``InMemorySegmentsTransport`` for tests, and
/// the mock server's in-process transport for the benchmark harness.
///
/// Threading: methods are called from the engine's tasks (at most one listener check, one pull
/// fetch and one upload at a time, interleaved at their suspension points). Those tasks prefer the
/// engine thread as their executor, so the synchronous steps of a call run there: a method must not
/// block its thread (no semaphores, sleeps or synchronous I/O; suspend instead) and must not call
/// back into the client synchronously, or the engine stops taking events while it waits.
/// Errors: every failure is a ``SegmentsError``; a body that is not of the documented shape is
/// ``SegmentsError/malformedResponse(_:)``, never an empty success.
public protocol SegmentsTransport: Sendable {
    /// Uploads tracked events, in order (`POST /track/v2/projects/{token}/customers/events`, or a
    /// batch endpoint). Either all are accepted or the call throws.
    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError)

    /// Uploads a customer record update (`POST /track/v2/projects/{token}/customers`).
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError)

    /// Links the cookie to the customer's hard ids
    /// (`POST /webxp/projects/{token}/cookies/{cookie}/link-ids`, body `{"external_ids": {...}}`).
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)

    /// Fetches the segments of the customer with `cookie`
    /// (`GET /webxp/projects/{token}/segments?cookie=...`).
    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse
}
