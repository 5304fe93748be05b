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
    /// The server asked to slow down (HTTP 429), for at least `retryAfter` if it said how long
    /// (its `Retry-After` header).
    case rateLimited(retryAfter: Duration? = nil)
    /// The server failed (HTTP 5xx); `retryAfter` is its `Retry-After` header, if it sent one.
    case serverError(status: Int, retryAfter: Duration? = nil)
    /// Any other unexpected HTTP status.
    case unexpectedStatus(Int)
    /// The request did not complete before its deadline.
    case timeout
    /// The server timed out waiting for the request (HTTP 408); `retryAfter` is its `Retry-After`
    /// header, if it sent one.
    case requestTimeout(retryAfter: Duration? = nil)
    /// The connection could not be made or was lost.
    case connectionFailed(String)
    /// The response body is not of the documented shape.
    case malformedResponse(String)
    /// The customer changed while a fetch was in flight, more often than the refetch bound allows.
    case customerChanged
    /// The task awaiting the call was cancelled. Only the caller stopped waiting: work the call
    /// started (a fetch other callers share) goes on.
    case cancelled
    /// Qualified segments (SPEC §9): the server does not know the user id
    /// (`extensions.code == "INVALID_IDENTIFIER_EXCEPTION"`).
    case invalidSegmentIdentifier
    /// Qualified segments (SPEC §9): the fetch failed; the reason is `"network error"`, a non-2xx
    /// HTTP status such as `"503"`, `"decode error"`, the server error's classification (its
    /// message when it has none), or a sentence saying the blocking fetch was called on the
    /// qualified segments thread.
    case fetchSegmentsFailed(String)
    /// ``SegmentsClient/flushJournal()``: the events tracked before the call are not all in the
    /// event journal (none is configured, it is set aside for the run because a journal file could
    /// not be read, it is full, an upload is larger than a record, or it cannot be written or
    /// synced); they are still queued in memory and uploaded as usual.
    case journalUnavailable(String)
    /// The credentials cannot be sent as they are (a control character in the authorization or
    /// API key, or a project token that names no path segment: empty, `.` or `..`): the request
    /// was not made. Not transient; fix the configuration. The reason never
    /// holds the secret.
    case invalidCredentials(String)
    /// The server answered for the first `answered` commands of an upload: it refused those listed
    /// in `refused` for good (sending them again would be refused again) and accepted the others.
    /// The commands after them were not sent, because of `then`; `nil` when every command was
    /// answered.
    indirect case partialUpload(answered: Int, refused: [CommandRefusal], then: SegmentsError?)

    /// `true` for failures that a retry may fix: network, timeout, 408, 429 and 5xx.
    public var isTransient: Bool {
        switch self {
        case .timeout, .requestTimeout, .connectionFailed, .rateLimited, .serverError, .unexpectedStatus(408): true
        default: false
        }
    }

    /// How long the server asked the client to wait before trying again (`Retry-After`), if it did.
    public var retryAfter: Duration? {
        switch self {
        case .rateLimited(let delay), .serverError(_, let delay), .requestTimeout(let delay): delay
        default: nil
        }
    }

    /// A sentence for logs and error messages, on one line: control characters in text a server
    /// sent (a body's excerpt, a refusal's reason) are written as escapes.
    public var description: String { unescapedDescription.escapingControlCharacters }

    private var unescapedDescription: String {
        switch self {
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .notStarted: "the segments client has not been started"
        case .stopped: "the segments client has been stopped"
        case .unauthorized(let status): "not authorized (HTTP \(status)): check the project token and authorization"
        case .notFound: "not found (HTTP 404): check the base URL and project token"
        case .rateLimited(let delay): "rate limited (HTTP 429)\(Self.describe(retryAfter: delay))"
        case .serverError(let status, let delay): "server error (HTTP \(status))\(Self.describe(retryAfter: delay))"
        case .unexpectedStatus(let status) where (300..<400).contains(status):
            "redirected (HTTP \(status)): set the base URL to the address the server redirects to"
        case .unexpectedStatus(let status): "unexpected HTTP status \(status)"
        case .timeout: "request timed out"
        case .requestTimeout(let delay): "the server timed out waiting for the request (HTTP 408)\(Self.describe(retryAfter: delay))"
        case .connectionFailed(let reason): "connection failed: \(reason)"
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .customerChanged: "the customer changed while segments were being fetched"
        case .cancelled: "the waiting task was cancelled"
        case .invalidSegmentIdentifier: "Audience segments fetch failed (invalid identifier)"
        case .fetchSegmentsFailed(let reason): "Audience segments fetch failed (\(reason))."
        case .journalUnavailable(let reason): reason
        case .invalidCredentials(let reason): "invalid credentials: \(reason)"
        case .partialUpload(let answered, let refused, let then):
            "the server refused \(refused.count) of \(answered) answered commands"
                + (refused.first.map { " (first: \($0.reason))" } ?? "")
                + (then.map { "; the rest were not sent: \($0)" } ?? "")
        }
    }

    private static func describe(retryAfter: Duration?) -> String {
        retryAfter.map { ", retry after \($0)" } ?? ""
    }
}

/// One command of an upload that the server refused for good (`"success": false` in a batch
/// answer, or a 4xx status for a request that carried one command).
public struct CommandRefusal: Hashable, Sendable {
    /// The command's index in the upload (events in the order they were passed to the transport).
    public var index: Int
    /// The reason the server gave, as one line.
    public var reason: String

    /// Creates a refusal.
    public init(index: Int, reason: String) {
        self.index = index
        self.reason = reason
    }
}
