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
    /// execution as the HTTP server, and the resulting JSON tree is decoded with the SPEC §9
    /// mapping (only the JSON text round trip is skipped).
    ///
    /// Outcomes:
    /// - the names of the audiences the user qualifies for, in the order the server lists them:
    ///   the request's order, or the server order when `segmentsToCheck` is empty;
    /// - unknown user → ``SegmentsError/invalidSegmentIdentifier``; another GraphQL error →
    ///   ``SegmentsError/fetchSegmentsFailed(_:)`` with its `classification`;
    /// - no project has `apiKey` → `fetchSegmentsFailed("403")`, as the server's 403;
    /// - error fault → `fetchSegmentsFailed("<status>")`, for example `"503"` or `"429"`;
    /// - malformed or truncated body fault → `fetchSegmentsFailed("decode error")` (the faulty
    ///   body is produced and decoded, not assumed);
    /// - reset or hang fault → `fetchSegmentsFailed("network error")`, a hang after the profile's
    ///   `maxHang`. Cancelling the calling task during a latency or hang sleep also ends the call
    ///   with `"network error"` (the client gave up). A failed call never touches the model.
    public func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError)
        -> [String]
    {
        backend.recordRequest(.qualifiedSegments)
        let decision = injector.decide(.qualifiedSegments)
        if let delay = decision.delay { try await waitOrFail(delay) }
        switch decision.outcome {
        case .pass:
            break
        case .error(let status):
            throw .fetchSegmentsFailed(String(status))
        case .hang(let limit):
            try await waitOrFail(limit)
            throw .fetchSegmentsFailed(Self.networkError)
        case .malformed(let variant):
            return try QualifiedSegmentsWire.decodeResponse(
                status: 200, body: WireResponseBodies.malformed(for: .qualifiedSegments, variant: variant))
        case .truncated:
            let body = WireResponseBodies.emptyQualifiedSegments
            return try QualifiedSegmentsWire.decodeResponse(status: 200, body: body.prefix(max(1, body.count / 2)))
        case .reset:
            throw .fetchSegmentsFailed(Self.networkError)
        }
        guard let project = backend.project(apiKey: apiKey) else { throw .fetchSegmentsFailed("403") }
        let result = await QualifiedSegmentsExecutor(backend: backend)
            .execute(QualifiedQueryTemplate.request(for: query), projectToken: project.token)
        // Through the JSON text, read by the client's own decoder: what goes over HTTP.
        let json = (try? JSONEncoder().encode(GraphQLResponseBody.map(result))) ?? Data()
        return try QualifiedSegmentsWire.decodeResponse(status: 200, body: json)
    }

    /// The SDK's reason for a failed connection or a timeout.
    private static let networkError = "network error"

    /// Sleeps; a cancelled caller gave up waiting, which the SDK reports as a network error.
    private func waitOrFail(_ duration: Duration) async throws(SegmentsError) {
        do {
            try await Task.sleep(for: duration)
        } catch {
            throw .fetchSegmentsFailed(Self.networkError)
        }
    }
}
