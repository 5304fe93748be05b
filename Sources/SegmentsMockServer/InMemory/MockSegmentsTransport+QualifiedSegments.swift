import Foundation
import RealtimeSegments

/// Qualified segments in memory: the HTTP server's `POST /v3/graphql` without the socket.
extension MockSegmentsTransport: QualifiedSegmentsTransport {
    /// Answers `query` as the mock server's GraphQL endpoint would, and reads the answer as the
    /// reference SDK does.
    ///
    /// The call counts a request on ``MockEndpoint/qualifiedSegments`` and draws its fault; then
    /// the project is the one whose API key is `apiKey`; then the SDK's query text for
    /// `query.userKey` (verbatim) and its variables run through the same parse, validation and
    /// execution as the HTTP server, and the JSON text the server would send is decoded with the
    /// SPEC §9 mapping (`QualifiedSegmentsWire.decodeResponse(status:body:)`).
    ///
    /// Outcomes:
    /// - the names of the audiences the user qualifies for, in the order the server lists them:
    ///   the request's order, or the server order when `segmentsToCheck` is empty;
    /// - unknown user → `SegmentsError.invalidSegmentIdentifier`; another GraphQL error →
    ///   `SegmentsError.fetchSegmentsFailed(_:)` with its `classification`;
    /// - no project has `apiKey` → `fetchSegmentsFailed("403")`, as the server's 403;
    /// - error fault → `fetchSegmentsFailed("<status>")`, for example `"503"` or `"429"`;
    /// - malformed body fault → `fetchSegmentsFailed("decode error")` (the faulty body is produced
    ///   and decoded, not assumed);
    /// - truncated body, reset or hang fault → `fetchSegmentsFailed("network error")` (over HTTP a
    ///   body cut short never fully arrives), a hang after the profile's `maxHang`. Cancelling
    ///   the calling task during a latency or hang sleep also ends the call with
    ///   `"network error"` (the client gave up). A failed call never touches the model.
    public func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError)
        -> [String]
    {
        switch try await drawFault(.qualifiedSegments, cancelled: Self.networkError) {
        case .pass:
            break
        case .error(let status):
            throw .fetchSegmentsFailed(String(status))
        case .hang(let limit):
            try await sleep(for: limit, cancelled: Self.networkError)
            throw Self.networkError
        case .malformed(let variant):
            return try QualifiedSegmentsWire.decodeResponse(
                status: 200, body: WireResponseBodies.malformed(for: .qualifiedSegments, variant: variant))
        case .truncated, .reset:
            throw Self.networkError
        }
        guard let project = backend.project(apiKey: apiKey) else { throw .fetchSegmentsFailed("403") }
        let result = await QualifiedSegmentsExecutor(backend: backend)
            .execute(QualifiedQueryTemplate.request(for: query), projectToken: project.token)
        // The JSON text the HTTP server would send, read by the client's own decoder.
        return try QualifiedSegmentsWire.decodeResponse(status: 200, body: GraphQLResponseBody.data(result))
    }

    /// The SDK's error for a failed connection or a timeout (a cancelled caller gave up waiting,
    /// which the SDK reports the same way).
    private static let networkError = SegmentsError.fetchSegmentsFailed("network error")
}
