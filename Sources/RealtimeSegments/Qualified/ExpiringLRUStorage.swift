/// The single-threaded core of ``QualifiedSegmentsCache``: a least-recently-used map whose entries
/// also expire a fixed time after they were saved.
///
/// Every operation is O(1) (amortized for `save`, which may sweep several expired entries, each of
/// which it removes once). Entries live in one array and are threaded on two intrusive doubly
/// linked lists by index, so touching an entry never scans:
/// - the **recency list**, least recently used first: a lookup hit moves the entry to the end, and
///   eviction takes from the front;
/// - the **age list**, oldest save first: saves append entries and stamp them no earlier than the
///   newest one (see ``save(_:_:now:)``), so the list is sorted by stamp, and the expired entries are
///   exactly a prefix of it. Sweeping that prefix on save frees the room expired entries hold,
///   without a scan.
///
/// A hit refreshes recency, not age: the TTL always counts from the save.
///
/// Threading: a value type with no synchronization; ``QualifiedSegmentsCache`` guards it with a lock.
struct ExpiringLRUStorage<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key?
        var value: Value?
        var savedAt: SegmentsInstant
        // Links are slot indices; -1 (``ExpiringLRUStorage/none``) ends a list.
        var lessRecent = -1
        var moreRecent = -1
        var older = -1
        var newer = -1
    }

    /// "No node" in the index links.
    private static var none: Int { -1 }

    /// Most entries kept; `<= 0` disables the storage (lookups miss, saves do nothing).
    let capacity: Int
    /// Nanoseconds an entry stays valid after its save; 0 means it never expires.
    let timeoutNanoseconds: UInt64

    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var slots: [Key: Int] = [:]
    private var leastRecent = -1
    private var mostRecent = -1
    private var oldest = -1
    private var newest = -1

    /// Creates empty storage holding at most `capacity` entries, each valid for `timeout` after it
    /// is saved (`.zero` for no expiry).
    init(capacity: Int, timeout: Duration) {
        self.capacity = capacity
        self.timeoutNanoseconds = timeout.clampedNanoseconds
    }

    /// Number of entries held, expired ones not yet removed included.
    var count: Int { slots.count }

    /// The value saved for `key` if it has not expired at `now`, marking it most recently used. An
    /// expired entry is removed.
    mutating func lookup(_ key: Key, now: SegmentsInstant) -> Value? {
        guard let slot = slots[key] else { return nil }
        if isExpired(slot, now: now) {
            unlinkAndFree(slot)
            return nil
        }
        unlinkRecency(slot)
        appendRecency(slot)
        return nodes[slot].value
    }

    /// The value saved for `key` if it has not expired at `now`, without changing recency and
    /// without removing anything.
    func peek(_ key: Key, now: SegmentsInstant) -> Value? {
        guard let slot = slots[key], !isExpired(slot, now: now) else { return nil }
        return nodes[slot].value
    }

    /// Saves `value` for `key` as a fresh entry (most recently used, stamped `now`), replacing any
    /// previous one; then removes expired entries and evicts the least recently used ones while
    /// there are more than ``capacity``.
    ///
    /// A `now` older than the newest entry's stamp (a caller that read the clock before another
    /// one but saves after it) stamps the entry with the newest stamp instead: the entry counts as
    /// saved when it was stored, and the age list stays sorted, which the sweep relies on.
    mutating func save(_ key: Key, _ value: Value, now: SegmentsInstant) {
        guard capacity > 0 else { return }
        if let previous = slots[key] { unlinkAndFree(previous) }
        let stamp = newest == Self.none ? now : max(now, nodes[newest].savedAt)
        let node = Node(key: key, value: value, savedAt: stamp)
        let slot: Int
        if let reused = freeSlots.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        appendRecency(slot)
        appendAge(slot)
        while oldest != Self.none, isExpired(oldest, now: stamp) { unlinkAndFree(oldest) }
        while slots.count > capacity { unlinkAndFree(leastRecent) }
    }

    /// Removes the entry for `key`, if any.
    mutating func remove(_ key: Key) {
        if let slot = slots[key] { unlinkAndFree(slot) }
    }

    /// Removes every entry.
    mutating func removeAll() {
        nodes.removeAll()
        freeSlots.removeAll()
        slots.removeAll()
        leastRecent = Self.none
        mostRecent = Self.none
        oldest = Self.none
        newest = Self.none
    }

    /// The keys from least to most recently used (for tests; O(n)).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = leastRecent
        while slot != Self.none {
            if let key = nodes[slot].key { keys.append(key) }
            slot = nodes[slot].moreRecent
        }
        return keys
    }

    // MARK: Links

    private func isExpired(_ slot: Int, now: SegmentsInstant) -> Bool {
        // Valid while strictly younger than the timeout, as in the reference SDK.
        timeoutNanoseconds != 0 && now.duration(since: nodes[slot].savedAt).clampedNanoseconds >= timeoutNanoseconds
    }

    private mutating func unlinkAndFree(_ slot: Int) {
        unlinkRecency(slot)
        unlinkAge(slot)
        if let key = nodes[slot].key { slots[key] = nil }
        // Drop the key and value now so a free slot keeps nothing alive.
        nodes[slot].key = nil
        nodes[slot].value = nil
        freeSlots.append(slot)
    }

    private mutating func appendRecency(_ slot: Int) {
        nodes[slot].lessRecent = mostRecent
        nodes[slot].moreRecent = Self.none
        if mostRecent != Self.none { nodes[mostRecent].moreRecent = slot } else { leastRecent = slot }
        mostRecent = slot
    }

    private mutating func unlinkRecency(_ slot: Int) {
        let before = nodes[slot].lessRecent
        let after = nodes[slot].moreRecent
        if before != Self.none { nodes[before].moreRecent = after } else { leastRecent = after }
        if after != Self.none { nodes[after].lessRecent = before } else { mostRecent = before }
        nodes[slot].lessRecent = Self.none
        nodes[slot].moreRecent = Self.none
    }

    private mutating func appendAge(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = Self.none
        if newest != Self.none { nodes[newest].newer = slot } else { oldest = slot }
        newest = slot
    }

    private mutating func unlinkAge(_ slot: Int) {
        let before = nodes[slot].older
        let after = nodes[slot].newer
        if before != Self.none { nodes[before].newer = after } else { oldest = after }
        if after != Self.none { nodes[after].older = before } else { newest = before }
        nodes[slot].older = Self.none
        nodes[slot].newer = Self.none
    }
}

/// A plain value: sendable when what it stores is.
extension ExpiringLRUStorage: Sendable where Key: Sendable, Value: Sendable {}
extension ExpiringLRUStorage.Node: Sendable where Key: Sendable, Value: Sendable {}
