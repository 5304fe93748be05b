import Atomics

/// The `getSegments` cache: the latest successful fetch for the current customer.
///
/// Written by the engine thread, read lock-free by callers, so a cache hit never waits for the
/// engine. An entry is valid while its generation is the current customer generation and it is
/// younger than the TTL.
final class PullCacheEntry: AtomicReference, Sendable {
    let generation: UInt64
    let fetchedAt: SegmentsInstant
    let response: SegmentsResponse

    init(generation: UInt64, fetchedAt: SegmentsInstant, response: SegmentsResponse) {
        self.generation = generation
        self.fetchedAt = fetchedAt
        self.response = response
    }
}

/// Holds the current ``PullCacheEntry``.
final class PullCache: Sendable {
    private let entry = ManagedAtomic<PullCacheEntry?>(nil)
    let ttl: Duration

    init(ttl: Duration) { self.ttl = ttl }

    /// The segments of `category`, their ids spelled out (as every list handed to app code), if the
    /// entry is fresh for `generation` at `now`.
    ///
    /// The entry keeps the fetched form and each hit spells its own copy, on the calling thread:
    /// spelling every category at each store would put that work before the check's deliveries,
    /// for lists few apps ask for.
    func lookup(_ category: SegmentCategory, generation: UInt64, now: SegmentsInstant) -> [Segment]? {
        guard let entry = entry.load(ordering: .acquiring), entry.generation == generation,
            now < entry.fetchedAt + ttl
        else { return nil }
        return entry.response[category].spelledOut()
    }

    /// Replaces the entry; returns the one it replaced, so that the engine can let it go (and free
    /// what it held) after the work that is waiting on this store.
    @discardableResult
    func store(_ response: SegmentsResponse, generation: UInt64, at now: SegmentsInstant) -> PullCacheEntry? {
        entry.exchange(PullCacheEntry(generation: generation, fetchedAt: now, response: response), ordering: .releasing)
    }

    func clear() { entry.store(nil, ordering: .releasing) }
}
