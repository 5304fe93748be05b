import Foundation

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

/// How requests authenticate: with a public API key (`Token`), a bearer token, or an API key pair
/// (HTTP Basic, as Exponea's private API access takes it).
public enum SegmentsAuthorization: Sendable, Hashable {
    /// `authorization: Token <token>` (a public API key).
    case token(String)
    /// `authorization: Bearer <token>` (a JWT or private key).
    case bearer(String)
    /// `authorization: Basic base64(<keyId>:<secret>)` (RFC 7617, UTF-8): a private API key's id and
    /// secret. The id cannot hold a `:`, since the server splits the pair at the first one.
    case basic(keyId: String, secret: String)

    /// The header value.
    public var headerValue: String {
        switch self {
        case .token(let token): "Token \(token)"
        case .bearer(let token): "Bearer \(token)"
        case .basic(let keyId, let secret): "Basic \(Data("\(keyId):\(secret)".utf8).base64EncodedString())"
        }
    }
}

/// The engine's connection to a segments backend (see SPEC §7 for the HTTP form).
///
/// Implementations: the HTTP transport for production, `InMemorySegmentsTransport` (RealtimeSegmentsTesting) for tests, and
/// the mock server's in-process transport for the benchmark harness.
///
/// Threading: methods may be called concurrently (at most one listener check, one pull fetch and
/// one upload at a time), from the engine's tasks; they must be thread-safe. They may track events
/// and change the customer, but must not make a blocking call that the engine answers: a
/// transport that declares ``neverBlocks`` has its fetches and links run on the engine thread
/// itself (see there), which would then wait for itself.
/// Errors: every failure is a ``SegmentsError``; a body that is not of the documented shape is
/// ``SegmentsError/malformedResponse(_:)``, never an empty success.
public protocol SegmentsTransport: Sendable {
    /// Uploads tracked events, in order (`POST /track/v2/projects/{token}/customers/events`, or a
    /// batch endpoint). Returns if the server accepted every event.
    ///
    /// How the engine treats what it throws: `unauthorized`, `notFound`, `invalidCredentials` and
    /// `unexpectedStatus` with a 3xx status stop uploads, keeping every event, until a fetch from
    /// the same server succeeds or a retry (after the longest backoff, then at doubling intervals)
    /// is accepted;
    /// `unexpectedStatus` with a 4xx status other than 408, and `invalidArgument`,
    /// refuse the whole upload, which the engine then sends in smaller parts until the refused
    /// events stand alone, and sets those aside; every other error is retried with backoff
    /// (honouring ``SegmentsError/retryAfter``). Throw
    /// ``SegmentsError/partialUpload(answered:refused:then:)`` when the server refused some events
    /// and accepted the others, or answered only the first ones: answered events are never sent
    /// again.
    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError)

    /// Uploads a customer record update (`POST /track/v2/projects/{token}/customers`). Errors are
    /// treated as for ``trackEvents(_:context:)``; a refused update is set aside.
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError)

    /// Links the cookie to the customer's hard ids
    /// (`POST /webxp/projects/{token}/cookies/{cookie}/link-ids`, body `{"external_ids": {...}}`).
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)

    /// Fetches the segments of the customer with `cookie`
    /// (`GET /webxp/projects/{token}/segments?cookie=...`).
    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse

    /// `true` if no method of this transport ever blocks its thread: it suspends (awaits) for I/O
    /// and time, and holds no lock across a wait (no semaphores, sleeps or synchronous I/O).
    ///
    /// Such a transport's fetches and links run with the engine thread as their preferred
    /// executor: the steps of a call between its suspensions run there, so a response reaches the
    /// diff without a thread wake-up in between (one wake-up less for an HTTP response, none for a
    /// transport that answers without suspending). A transport that blocked there would stop the
    /// engine, and once the event ring is full, every `trackEvent` caller with it. Uploads always
    /// run on a serial queue of the engine's own: encoding a batch there keeps it off the engine.
    ///
    /// Defaults to `false`: each fetch (with the link before it) runs on a serial Dispatch queue of
    /// its own, off Swift's cooperative pool, so a call that blocks holds one thread of its own and
    /// never a thread the app's tasks need. The HTTP transport,
    /// the in-memory transport and the mock server's transport declare `true`; a transport that
    /// wraps another should forward the wrapped one's value.
    var neverBlocks: Bool { get }
}

extension SegmentsTransport {
    /// `false`: a transport of your own runs each fetch and link on a serial queue of its own
    /// unless it declares otherwise (see ``SegmentsTransport/neverBlocks``).
    public var neverBlocks: Bool { false }
}
