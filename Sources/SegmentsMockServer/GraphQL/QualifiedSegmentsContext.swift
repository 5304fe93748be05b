/// The GraphQL execution context of one qualified-segments request: where its resolvers read from.
struct QualifiedSegmentsContext: Sendable {
    /// The backend whose membership model answers.
    var backend: SegmentsBackend
    /// The project the request's `x-api-key` selected.
    var projectToken: String
}
