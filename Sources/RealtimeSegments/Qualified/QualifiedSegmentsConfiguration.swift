/// Settings of qualified segments (SPEC §9), in ``SegmentsConfiguration/qualifiedSegments``.
///
/// The server host is the transport's (for the HTTP transport,
/// `HTTPTransportConfiguration.qualifiedSegmentsHost`, by default its base URL).
public struct QualifiedSegmentsConfiguration: Sendable, Hashable {
    /// The key sent as `x-api-key`. `nil` or empty makes every fetch fail with
    /// ``SegmentsError/fetchSegmentsFailed(_:)`` `"apiKey/apiHost not defined"`.
    public var apiKey: String?
    /// The segments every fetch asks about (the `audiences` variable), in request order. Empty
    /// makes every fetch succeed with `[]` without a request.
    public var segmentsToCheck: [String]
    /// Most users kept in the cache (default 100); 0 or less disables the cache.
    public var cacheSize: Int
    /// How long a cached answer stays valid (default 600 s), time asleep included
    /// (``SegmentsClock/continuousNow()``); zero means forever.
    public var cacheTimeout: Duration

    /// Creates a configuration with the default cache.
    public init(
        apiKey: String?,
        segmentsToCheck: [String],
        cacheSize: Int = QualifiedSegmentsCache.defaultSize,
        cacheTimeout: Duration = QualifiedSegmentsCache.defaultTimeout
    ) {
        self.apiKey = apiKey
        self.segmentsToCheck = segmentsToCheck
        self.cacheSize = cacheSize
        self.cacheTimeout = cacheTimeout
    }
}
