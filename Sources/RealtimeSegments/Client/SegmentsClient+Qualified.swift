extension SegmentsClient {
    /// Creates a context for `userId`, to fetch and query its qualified segments (SPEC §9).
    ///
    /// Contexts of one client share its qualified-segments cache and requests in flight. They work
    /// whether or not the client has been started: qualified segments do not use the engine thread.
    ///
    /// - Throws: ``SegmentsError/invalidArgument(_:)`` for an empty `userId`.
    public func createUserContext(
        userId: String, attributes: [String: JSONValue] = [:]
    ) throws(SegmentsError) -> QualifiedUserContext {
        guard !userId.isEmpty else { throw .invalidArgument("userId is empty") }
        return QualifiedUserContext(userId: userId, attributes: attributes, fetcher: qualifiedFetcher)
    }

    /// The qualified-segments cache of this client, keyed `"<userKey>-$-<userValue>"` (for
    /// inspection, per-user invalidation with ``QualifiedSegmentsCache/remove(_:)``, or a reset).
    public var qualifiedSegmentsCache: QualifiedSegmentsCache { qualifiedFetcher.cache }
}
