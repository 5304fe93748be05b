import RealtimeSegments

extension QualifiedSegmentsCache {
    /// Creates an empty cache of `size` users whose entries live for `timeout`, timed by `clock`:
    /// a cache of its own, to test the cache rules apart from a client (a client makes its own,
    /// `SegmentsClient.qualifiedSegmentsCache`).
    public convenience init(
        size: Int = QualifiedSegmentsCache.defaultSize,
        timeout: Duration = QualifiedSegmentsCache.defaultTimeout,
        clock: any SegmentsClock = SystemClock()
    ) {
        self.init(maxUsers: size, timeout: timeout, clock: clock)
    }

    /// The segments saved under `key` if the entry has not expired, without making it most
    /// recently used (as `lookup(_:)` does). Never returns an expired entry.
    ///
    /// Threading: any thread; reads the clock, then takes the cache's lock for an O(1) step.
    public func peek(_ key: String) -> [String]? { peekSegments(key) }

    /// The keys from least to most recently used, expired entries not yet removed included.
    ///
    /// Threading: any thread; O(n) under the cache's lock.
    public var keysByRecency: [String] { keysInRecencyOrder }
}
