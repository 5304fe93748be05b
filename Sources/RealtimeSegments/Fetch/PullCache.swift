import Atomics
import Synchronization

/// The `getSegments` cache: the latest successful fetch for the current customer.
///
/// Written by the engine thread, read lock-free by callers, so a cache hit never waits for the
/// engine. An entry is valid while its generation is the current customer generation and it is
/// younger than the TTL.
final class PullCacheEntry: AtomicReference, Sendable {
    let generation: UInt64
    /// The fetch's ``FetchOutcome/sequence``: an answer to an earlier request does not replace it.
    let sequence: UInt64
    /// When it was fetched, on the clock's ``SegmentsClock/continuousNow()``: it ages while the
    /// device sleeps.
    let fetchedAt: SegmentsInstant
    let response: SegmentsResponse
    /// The response's lists with their ids spelled out (see ``Segment``), made by the first hit and
    /// shared by the later ones. Not made at the store: that would put the spelling of every
    /// category before the check's deliveries, for lists few apps ask for. Stored inline rather
    /// than as an atomic reference object: the entry is made once per check, before the
    /// deliveries, and must not cost an allocation more. Not behind `Synchronization.Mutex`, whose
    /// waits on Linux are futex calls ThreadSanitizer cannot see (it reported racing hits as a
    /// data race).
    private let spelled = AtomicLazyReference<SpelledLists>()

    init(generation: UInt64, sequence: UInt64, fetchedAt: SegmentsInstant, response: SegmentsResponse) {
        self.generation = generation
        self.sequence = sequence
        self.fetchedAt = fetchedAt
        self.response = response
    }

    /// The segments of `category`, their ids spelled out. Any thread, lock-free: hits that race
    /// with the first may each spell the lists, and all of them return those of the one that
    /// stored first, as every later hit does.
    func segments(of category: SegmentCategory) -> [Segment] {
        let lists = spelled.load() ?? spelled.storeIfNil(SpelledLists(response.categories.mapValues { $0.spelledOut() }))
        return lists.categories[category] ?? []
    }
}

/// A response's lists with their ids spelled out (see ``PullCacheEntry``).
private final class SpelledLists: Sendable {
    let categories: [SegmentCategory: [Segment]]

    init(_ categories: [SegmentCategory: [Segment]]) { self.categories = categories }
}

/// Holds the current ``PullCacheEntry``.
final class PullCache: Sendable {
    private let entry = ManagedAtomic<PullCacheEntry?>(nil)
    /// The stored entry's generation (0: none) and fetch sequence, for ``store(_:generation:sequence:at:)``
    /// to compare without loading the entry itself (a retain and a release per check). Written by
    /// the engine thread alone.
    private let storedGeneration = Atomic<UInt64>(0)
    private let storedSequence = Atomic<UInt64>(0)
    let ttl: Duration

    init(ttl: Duration) { self.ttl = ttl }

    /// The segments of `category`, their ids spelled out (as every list handed to app code), if the
    /// entry is fresh for `generation` at `now`.
    func lookup(_ category: SegmentCategory, generation: UInt64, now: SegmentsInstant) -> [Segment]? {
        guard let entry = entry.load(ordering: .acquiring), entry.generation == generation,
            now < entry.fetchedAt + ttl
        else { return nil }
        return entry.segments(of: category)
    }

    /// Replaces the entry, unless it holds the same customer's answer to a later request (fetch
    /// `sequence`): a request sent earlier and answered later is older data. Returns the entry it
    /// replaced, so that the engine can let it go (and free what it held) after the work that is
    /// waiting on this store. Engine thread only (the one writer).
    @discardableResult
    func store(_ response: SegmentsResponse, generation: UInt64, sequence: UInt64, at now: SegmentsInstant) -> PullCacheEntry? {
        if storedGeneration.load(ordering: .relaxed) == generation, storedSequence.load(ordering: .relaxed) > sequence {
            return nil
        }
        storedGeneration.store(generation, ordering: .relaxed)
        storedSequence.store(sequence, ordering: .relaxed)
        return entry.exchange(
            PullCacheEntry(generation: generation, sequence: sequence, fetchedAt: now, response: response), ordering: .releasing)
    }

    /// Engine thread only.
    func clear() {
        storedGeneration.store(0, ordering: .relaxed)
        entry.store(nil, ordering: .releasing)
    }
}
