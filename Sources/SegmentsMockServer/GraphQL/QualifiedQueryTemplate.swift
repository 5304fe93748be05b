import GraphQL
import RealtimeSegments

/// The request the reference SDK sends for a `QualifiedSegmentsQuery` (notes A.5): the engine's
/// own query text (`QualifiedSegmentsWire.query(for:)`, so the mock answers exactly what the
/// client sends) and its variables.
enum QualifiedQueryTemplate {
    /// The request body for `query`. The text is the same for every query with the same user key,
    /// so ``ParsedQueryCache`` (keyed by text) parses it once.
    static func request(for query: QualifiedSegmentsQuery) -> GraphQLRequestBody {
        GraphQLRequestBody(
            query: QualifiedSegmentsWire.query(for: query.userKey),
            variables: ["userId": .string(query.userValue), "audiences": .array(query.segmentsToCheck.map(Map.string))])
    }
}
