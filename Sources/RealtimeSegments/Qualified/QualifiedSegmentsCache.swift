/// The qualified-segments cache (SPEC §9): each user's qualified segment names, least recently
/// used evicted first, each entry valid for a fixed time after it was saved.
///
/// Keys are ``key(userKey:userValue:)``, `"<userKey>-$-<userValue>"` (for example
/// `vuid-$-vuid_123` or `fs_user_id-$-jane`), as in the reference SDK. The key holds neither the
/// segment list nor the API key: a client's configuration is fixed, so one client's entries always
/// answer the same question.
///
/// Rules:
/// - A ``size`` of 0 (or less) disables the cache: lookups miss and saves do nothing.
/// - A ``timeout`` of zero (or less) means entries never expire. Otherwise an entry is valid while
///   strictly younger than the timeout, measured on the client's monotonic ``SegmentsClock``.
/// - A lookup hit makes the entry most recently used but does not extend its life.
/// - Saving evicts: expired entries first, then the least recently used while over ``size``.
///   Expired entries are also removed when a lookup meets them.
///
/// A client makes its own (``SegmentsClient/qualifiedSegmentsCache``); RealtimeSegmentsTesting
/// adds a standalone initializer and the inspection calls `peek(_:)` and `keysByRecency`.
///
/// Threading: every method may be called from any thread. Each call takes one lock for an O(1)
/// step, and writes are synchronous: a lookup that starts after a save returned sees it. The clock
/// is read before the lock is taken (a ``SegmentsClock`` may be app code); saves that reach the
/// lock out of clock order are stamped in the order they were stored (see
/// `ExpiringLRUStorage.save(_:_:now:)`).
public final class QualifiedSegmentsCache: Sendable {
    /// The default number of users kept (the reference SDK's).
    public static let defaultSize = 100
    /// The default entry lifetime, 600 s (the reference SDK's).
    public static let defaultTimeout: Duration = .seconds(600)

    /// Most users kept; 0 disables the cache.
    public let size: Int
    /// How long an entry stays valid after it is saved; zero means forever.
    public let timeout: Duration

    private struct State {
        var entries: ExpiringLRUStorage<String, QualifiedAnswer>
        /// Counts ``reset()`` calls, so a fetch that started before a reset does not save after it.
        var epoch: UInt64 = 0
    }

    private let clock: any SegmentsClock
    private let state: Locked<State>
    /// Called by ``remove(_:)`` with the key, before the entry goes: the fetcher forgets that
    /// user's request in flight, so its answer is not saved after the removal and nobody joins it.
    private let willRemove: @Sendable (String) -> Void

    /// Creates an empty cache of `size` users whose entries live for `timeout`, timed by `clock`;
    /// `willRemove` is told each key ``remove(_:)`` is about to remove (called outside the lock).
    package init(
        maxUsers size: Int, timeout: Duration, clock: any SegmentsClock, willRemove: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.size = size
        self.timeout = timeout
        self.clock = clock
        self.willRemove = willRemove
        // A negative timeout clamps to zero nanoseconds: never expires.
        state = Locked(State(entries: ExpiringLRUStorage(capacity: size, timeout: timeout)))
    }

    /// The cache key of a user: `"<userKey>-$-<userValue>"`.
    public static func key(userKey: QualifiedUserKey, userValue: String) -> String {
        "\(userKey.rawValue)-$-\(userValue)"
    }

    /// The segments saved under `key` if the entry has not expired; a hit makes it most recently
    /// used, an expired entry is removed.
    public func lookup(_ key: String) -> [String]? { lookupAnswer(key)?.names }

    /// Saves `segments` under `key` as a fresh entry, then evicts (expired entries first, then the
    /// least recently used).
    public func save(_ key: String, _ segments: [String]) {
        let answer = QualifiedAnswer(segments)  // built outside the lock
        let now = clock.continuousNow()
        state.withLock { $0.entries.save(key, answer, now: now) }
    }

    /// Removes the entry for `key`, if any. An answer to a request sent before this call is not
    /// saved after it, and a fetch that starts after it sends a request of its own.
    public func remove(_ key: String) {
        // The request in flight is forgotten first: one that ends in between saves before the
        // entry goes (and is removed with it) or, forgotten, not at all.
        willRemove(key)
        state.withLock { $0.entries.remove(key) }
    }

    /// Removes every entry. An answer to a request sent before this call is not saved after it, and
    /// a fetch that starts after it sends a request of its own.
    public func reset() {
        state.withLock { state in
            state.entries.removeAll()
            state.epoch &+= 1
        }
    }

    /// Number of entries held (expired entries not yet removed included).
    public var count: Int { state.withLock { $0.entries.count } }

    // MARK: For RealtimeSegmentsTesting

    /// The segments saved under `key` if the entry has not expired, without touching recency.
    package func peekSegments(_ key: String) -> [String]? { peekAnswer(key)?.names }

    /// The keys from least to most recently used (O(n)).
    package var keysInRecencyOrder: [String] { state.withLock { $0.entries.keysByRecency } }

    // MARK: For the fetcher

    /// The number of resets so far.
    var epoch: UInt64 { state.withLock { $0.epoch } }

    /// ``lookup(_:)``, with the lookup set saved alongside the names.
    func lookupAnswer(_ key: String) -> QualifiedAnswer? {
        let now = clock.continuousNow()
        return state.withLock { $0.entries.lookup(key, now: now) }
    }

    /// ``peekSegments(_:)``, with the lookup set saved alongside the names.
    func peekAnswer(_ key: String) -> QualifiedAnswer? {
        let now = clock.continuousNow()
        return state.withLock { $0.entries.peek(key, now: now) }
    }

    /// Saves `answer` under `key` unless the cache was reset since `epoch` was read: a response to a
    /// question asked before a reset must not outlive it.
    func save(_ key: String, _ answer: QualifiedAnswer, ifEpoch epoch: UInt64) {
        let now = clock.continuousNow()
        state.withLock { state in
            guard state.epoch == epoch else { return }
            state.entries.save(key, answer, now: now)
        }
    }
}

/// One user's qualified segment names and the same names as a set, for O(1)
/// ``QualifiedUserContext/isQualifiedFor(segment:)`` however long the list. Built once per
/// server answer (or assignment) and shared, copy-on-write, by the cache, the request's joiners
/// and every context it is stored in: a cache hit builds nothing.
struct QualifiedAnswer: Sendable {
    /// The names, in server order.
    let names: [String]
    /// The same names, for membership tests.
    let lookup: Set<String>

    init(_ names: [String]) {
        self.names = names
        self.lookup = Set(names)
    }
}
