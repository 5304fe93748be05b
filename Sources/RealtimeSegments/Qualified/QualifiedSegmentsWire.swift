import Foundation

/// The qualified-segments wire format (SPEC §9; notes A.5), as pure functions so every transport
/// sends the same bytes and maps responses to the same errors, and tests need no server.
///
/// Request: `POST {host}/v3/graphql` with `x-api-key` and `content-type: application/json` and the
/// body of ``requestBody(for:)``. Response: ``decodeResponse(status:body:)``.
///
/// Threading: stateless; call from anywhere.
public enum QualifiedSegmentsWire {
    /// The request path, appended to the host.
    public static let path = "/v3/graphql"

    /// The `extensions.code` of an error saying the user id is unknown.
    public static let invalidIdentifierCode = "INVALID_IDENTIFIER_EXCEPTION"
    /// The `extensions.classification` some servers send instead of `code`, with the same meaning.
    public static let legacyInvalidIdentifierClassification = "InvalidIdentifierException"

    /// The GraphQL query for `userKey`, spaced exactly like the reference SDK's: the key is spliced
    /// in as the argument name (it is not a GraphQL variable).
    public static func query(for userKey: QualifiedUserKey) -> String {
        "query($userId: String, $audiences: [String]) {customer(\(userKey.rawValue): $userId) "
            + "{audiences(subset: $audiences) {edges {node {name state}}}}}"
    }

    /// The request body: `{"query": <query>, "variables": {"audiences": [...], "userId": ...}}`,
    /// keys sorted, slashes unescaped.
    public static func requestBody(for query: QualifiedSegmentsQuery) -> Data {
        let body = RequestBody(
            query: Self.query(for: query.userKey),
            variables: .init(userId: query.userValue, audiences: query.segmentsToCheck))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Two strings and a string array always encode; a failure here would be a Foundation bug.
        return (try? encoder.encode(body)) ?? Data()
    }

    /// The reason of ``SegmentsError/fetchSegmentsFailed(_:)`` for a GraphQL error that has neither
    /// an `extensions.classification` nor a non-empty `message`.
    public static let unclassifiedErrorReason = "graphql error"

    /// The qualified segment names of a response, in server order.
    ///
    /// Evaluated in this order (the reference SDK's table, made strict where SPEC §9 says any
    /// other error fails):
    /// 1. a status outside 200–299 (a 3xx included, whatever its body) →
    ///    ``SegmentsError/fetchSegmentsFailed(_:)`` with the status, e.g. `"403"` or `"302"`;
    /// 2. a body that is not a JSON object → `"decode error"`;
    /// 3. `errors`, when present, not `null` and not empty: only its first element counts.
    ///    `extensions.code == "INVALID_IDENTIFIER_EXCEPTION"` (or the legacy
    ///    `extensions.classification == "InvalidIdentifierException"`) →
    ///    ``SegmentsError/invalidSegmentIdentifier``; any other error fails, even when `data` is
    ///    there too: with its `extensions.classification`, else its `message` (GraphQL requires
    ///    one), else ``unclassifiedErrorReason``. `errors` that is not an array, or an element
    ///    that is not an object → `"decode error"`;
    /// 4. `data.customer.audiences.edges` missing or not an array of objects → `"decode error"`;
    /// 5. every `edges[].node` with a string `name` and a string `state` is read (others are
    ///    skipped) and the names whose state is exactly `"qualified"` are returned. Empty edges → `[]`.
    public static func decodeResponse(status: Int, body: some DataProtocol) throws(SegmentsError) -> [String] {
        guard (200..<300).contains(status) else { throw .fetchSegmentsFailed(String(status)) }
        let decodeError = SegmentsError.fetchSegmentsFailed("decode error")
        guard let root = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw decodeError
        }
        if let failure = failure(reportedBy: root["errors"]) { throw failure }
        guard let data = root["data"] as? [String: Any], let customer = data["customer"] as? [String: Any],
              let audiences = customer["audiences"] as? [String: Any],
              let edges = audiences["edges"] as? [[String: Any]]
        else { throw decodeError }
        return edges.compactMap { edge in
            guard let node = edge["node"] as? [String: Any],
                  let name = node["name"] as? String, let state = node["state"] as? String,
                  state == "qualified"
            else { return nil }
            return name
        }
    }

    /// The error that a response's `errors` member reports (rule 3 of
    /// ``decodeResponse(status:body:)``), or `nil` when it reports none.
    private static func failure(reportedBy errors: Any?) -> SegmentsError? {
        guard let errors, !(errors is NSNull) else { return nil }
        guard let list = errors as? [Any] else { return .fetchSegmentsFailed("decode error") }
        guard let first = list.first else { return nil }
        guard let error = first as? [String: Any] else { return .fetchSegmentsFailed("decode error") }
        let extensions = error["extensions"] as? [String: Any] ?? [:]
        let classification = extensions["classification"] as? String
        if extensions["code"] as? String == invalidIdentifierCode || classification == legacyInvalidIdentifierClassification {
            return .invalidSegmentIdentifier
        }
        if let classification { return .fetchSegmentsFailed(classification) }
        if let message = error["message"] as? String, !message.isEmpty { return .fetchSegmentsFailed(message) }
        return .fetchSegmentsFailed(unclassifiedErrorReason)
    }

    private struct RequestBody: Encodable {
        struct Variables: Encodable {
            var userId: String
            var audiences: [String]
        }

        var query: String
        var variables: Variables
    }
}
