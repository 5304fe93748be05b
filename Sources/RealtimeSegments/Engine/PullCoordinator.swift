/// The `getSegments` calls that missed the cache and wait for one shared pull fetch.
///
/// Rules (SPEC §6):
/// - one pull fetch at a time: a call that arrives while one is in flight (or deferred behind a
///   link) waits for its result;
/// - a result fetched for a customer who is no longer current is not handed out: the fetch is made
///   again for the current customer, at most `maxRefetches` times, then every waiter fails with
///   ``SegmentsError/customerChanged``.
///
/// A pure value: it performs no I/O, reads no clock and never calls a completion; the owner looks
/// up the cache, launches the fetches and completes the waiters it hands back. Owned by
/// ``EngineOwner``; engine thread only.
struct PullCoordinator {
    /// A `getSegments` call waiting for the pull fetch: the category it asked for and its completion.
    typealias Waiter = (category: SegmentCategory, completion: PullCompletion)

    /// What to do when the pull fetch ends.
    enum Step: Equatable {
        /// The result belongs to the current customer: hand it to every waiter.
        case deliver
        /// The customer changed meanwhile: fetch again for the current customer (still in flight).
        case refetch
        /// The customer kept changing: fail every waiter; `attempts` fetches were made.
        case gaveUp(attempts: Int)
    }

    /// How often a fetch is made again because the customer changed while it ran.
    let maxRefetches: Int
    private(set) var waiters: [Waiter] = []
    /// A pull fetch is in flight, or deferred behind a link.
    private(set) var isFetching = false
    /// Fetches made for the waiters so far.
    private(set) var attempts = 0

    init(maxRefetches: Int) {
        self.maxRefetches = maxRefetches
    }

    /// Adds a waiter. Returns `true` if a pull fetch must start (none was in flight).
    mutating func enqueue(_ category: SegmentCategory, _ completion: @escaping PullCompletion) -> Bool {
        waiters.append((category, completion))
        guard !isFetching else { return false }
        isFetching = true
        attempts = 1
        return true
    }

    /// The pull fetch ended; `isCurrent` tells whether it was made for the customer current now.
    mutating func fetchEnded(isCurrent: Bool) -> Step {
        isFetching = false
        if isCurrent { return .deliver }
        guard attempts <= maxRefetches else { return .gaveUp(attempts: attempts) }
        attempts += 1
        isFetching = true
        return .refetch
    }

    /// The pull fetch in flight or deferred is not waited for any more (the engine stops).
    mutating func fetchAbandoned() {
        isFetching = false
    }

    /// Hands over every waiter, to be completed by the caller.
    mutating func takeWaiters() -> [Waiter] {
        defer { waiters.removeAll() }
        return waiters
    }
}
