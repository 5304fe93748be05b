/// How one `fetchQualifiedSegments` call of a ``QualifiedUserContext`` uses the cache.
public enum QualifiedSegmentOption: Sendable, Hashable, CaseIterable {
    /// Neither read nor write the cache: always ask the server and keep the answer out of the
    /// cache. Such a call never joins a request already in flight (that request may have been sent
    /// before the call), but later plain calls for the same user may join it.
    case ignoreCache
    /// Empty the whole cache, every user's entry, before the call. Requests already in flight are
    /// not joined afterwards and their answers are not cached.
    case resetCache
}
