/// Errors of the segments engine and its transports.
public enum SegmentsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An argument was rejected (empty event type, empty or reserved customer id, invalid category).
    case invalidArgument(String)
    /// The client has not been started (``SegmentsClient/start()``).
    case notStarted
    /// The client has been stopped.
    case stopped
    /// The server rejected the credentials (HTTP 401 or 403).
    case unauthorized(status: Int)
    /// The project or resource does not exist (HTTP 404).
    case notFound
    /// The server asked to slow down (HTTP 429).
    case rateLimited
    /// The server failed (HTTP 5xx).
    case serverError(status: Int)
    /// Any other unexpected HTTP status.
    case unexpectedStatus(Int)
    /// The request did not complete before its deadline.
    case timeout
    /// The connection could not be made or was lost.
    case connectionFailed(String)
    /// The response body is not of the documented shape.
    case malformedResponse(String)
    /// The customer changed while a fetch was in flight, more often than the refetch bound allows.
    case customerChanged
    /// Qualified segments (SPEC §9): the server does not know the user id
    /// (`extensions.code == "INVALID_IDENTIFIER_EXCEPTION"`).
    case invalidSegmentIdentifier
    /// Qualified segments (SPEC §9): the fetch failed; the reason is `"network error"`, a non-2xx
    /// HTTP status such as `"503"`, `"decode error"`, or the server error's classification (its
    /// message when it has none).
    case fetchSegmentsFailed(String)

    /// `true` for failures that a retry may fix (network, timeout, 429, 5xx).
    public var isTransient: Bool {
        switch self {
        case .timeout, .connectionFailed, .rateLimited, .serverError: true
        default: false
        }
    }

    /// A sentence for logs and error messages.
    public var description: String {
        switch self {
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .notStarted: "the segments client has not been started"
        case .stopped: "the segments client has been stopped"
        case .unauthorized(let status): "not authorized (HTTP \(status)): check the project token and authorization"
        case .notFound: "not found (HTTP 404): check the base URL and project token"
        case .rateLimited: "rate limited (HTTP 429)"
        case .serverError(let status): "server error (HTTP \(status))"
        case .unexpectedStatus(let status): "unexpected HTTP status \(status)"
        case .timeout: "request timed out"
        case .connectionFailed(let reason): "connection failed: \(reason)"
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .customerChanged: "the customer changed while segments were being fetched"
        case .invalidSegmentIdentifier: "Audience segments fetch failed (invalid identifier)"
        case .fetchSegmentsFailed(let reason): "Audience segments fetch failed (\(reason))."
        }
    }
}
