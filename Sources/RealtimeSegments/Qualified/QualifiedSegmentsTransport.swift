/// The identifier a qualified-segments query keys the user by (SPEC §9).
///
/// Ids that start with `vuid_` (any case) are visitor ids and go as `vuid`; every other id goes as
/// `fs_user_id`. The raw value is the argument name spliced into the GraphQL query.
public enum QualifiedUserKey: String, Sendable, Hashable, CaseIterable {
    /// A known user: `customer(fs_user_id: $userId)`.
    case fsUserId = "fs_user_id"
    /// An anonymous visitor id (`vuid_…`): `customer(vuid: $userId)`.
    case vuid = "vuid"

    /// The key for `userId`: ``vuid`` when it starts with `vuid_` (case-insensitive), else ``fsUserId``.
    public static func key(for userId: String) -> QualifiedUserKey {
        userId.lowercased().hasPrefix("vuid_") ? .vuid : .fsUserId
    }
}

/// One qualified-segments question: which of `segmentsToCheck` is the user qualified for?
public struct QualifiedSegmentsQuery: Sendable, Hashable {
    /// How the user is identified.
    public var userKey: QualifiedUserKey
    /// The user id (the `userId` variable).
    public var userValue: String
    /// The audience segments to ask about (the `audiences` variable), in request order.
    public var segmentsToCheck: [String]

    /// Creates a query.
    public init(userKey: QualifiedUserKey, userValue: String, segmentsToCheck: [String]) {
        self.userKey = userKey
        self.userValue = userValue
        self.segmentsToCheck = segmentsToCheck
    }
}

/// A backend that answers qualified-segments queries (SPEC §9 wire: `POST {host}/v3/graphql`).
///
/// The HTTP transport, `InMemorySegmentsTransport` (RealtimeSegmentsTesting) and the mock server's in-process transport
/// implement it next to ``SegmentsTransport``, so one transport object serves both APIs.
///
/// Threading: called concurrently from any task. Errors: the two SPEC §9 errors —
/// ``SegmentsError/invalidSegmentIdentifier`` when the server says the user is unknown, and
/// ``SegmentsError/fetchSegmentsFailed(_:)`` for every failure of the exchange — and, before any
/// exchange, ``SegmentsError/invalidCredentials(_:)`` for an API key no header can carry and
/// ``SegmentsError/cancelled`` for a cancelled caller. `fetchSegmentsFailed` carries the reference SDK's reason
/// strings where it has one: `"network error"` (connection failures and timeouts), `"<status>"` for any
/// non-2xx status, `"decode error"` for a body of the wrong shape, or the GraphQL error's
/// `classification` (its `message` when it has none; see ``QualifiedSegmentsWire``).
///
/// Every call must end, with an answer or an error, within a deadline of the transport's own: the
/// client shares one call among all concurrent fetches of a user, so a call that never returns
/// holds every later fetch of that user that does not pass ``QualifiedSegmentOption/ignoreCache``.
/// The HTTP transport ends each call within its request timeout.
public protocol QualifiedSegmentsTransport: Sendable {
    /// Returns the names of the audiences in `query.segmentsToCheck` whose state is `qualified`,
    /// in server order. `apiKey` goes in the `x-api-key` header.
    func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError) -> [String]
}
