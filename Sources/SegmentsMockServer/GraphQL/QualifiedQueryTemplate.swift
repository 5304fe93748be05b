import GraphQL
import RealtimeSegments

/// The request the reference SDK sends for a ``QualifiedSegmentsQuery`` (notes A.5): its query
/// text, verbatim, with the user key spliced in as the argument name, and its variables.
enum QualifiedQueryTemplate {
    /// The query text for `key`. Spacing is the SDK's, exactly (its tests compare it verbatim).
    static func text(for key: QualifiedUserKey) -> String {
        switch key {
        case .fsUserId: fsUserIdText
        case .vuid: vuidText
        }
    }

    /// The request body for `query`.
    static func request(for query: QualifiedSegmentsQuery) -> GraphQLRequestBody {
        GraphQLRequestBody(
            query: text(for: query.userKey),
            variables: ["userId": .string(query.userValue), "audiences": .array(query.segmentsToCheck.map(Map.string))])
    }

    // Built once: the texts are also the parsed-document cache's keys.
    private static let fsUserIdText = make(.fsUserId)
    private static let vuidText = make(.vuid)

    // The engine's own template: the mock answers exactly what the client sends.
    private static func make(_ key: QualifiedUserKey) -> String { QualifiedSegmentsWire.query(for: key) }
}
