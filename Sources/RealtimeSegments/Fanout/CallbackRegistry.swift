import Atomics
import Foundation
import Synchronization

/// One registration as delivery sees it: the callback next to its registration, stored inline in
/// contiguous chunks (``SubscriberRun``) so the delivery loop calls closures straight from an array
/// (as a plain closure loop does) and touches the registration object only when a removal or a
/// first load needs it.
struct Subscriber: Sendable {
    let onNewData: @Sendable ([Segment]) -> Void
    let registration: Registration
}

/// The registered callbacks, per category, as an immutable snapshot.
///
/// A snapshot is never mutated: add and remove publish a new one atomically (read-copy-update), so
/// delivery iterates what it loaded without a lock. Successive snapshots share all but the last
/// chunk of each category (see ``SubscriberRun``), so publishing one does not copy every
/// registration.
final class RegistrySnapshot: AtomicReference, Sendable {
    /// Subscribers per category, in registration order.
    let byCategory: [SegmentCategory: SubscriberRun]
    /// Number of registrations over all categories.
    let count: Int
    /// The categories of ``byCategory`` by name: the order a check delivers them in, kept here so
    /// that a check does not sort them again.
    let categories: [SegmentCategory]
    /// The subscribers of each of ``categories``, at the same index. Delivery finds a category's
    /// by comparing categories, which costs less than hashing one: an app has a handful.
    private let runs: [SubscriberRun]

    init(byCategory: [SegmentCategory: SubscriberRun]) {
        self.byCategory = byCategory
        self.count = byCategory.values.reduce(0) { $0 + $1.live }
        self.categories = byCategory.keys.sorted { $0.name < $1.name }
        self.runs = categories.map { byCategory[$0]! }
    }

    static let empty = RegistrySnapshot(byCategory: [:])

    /// The subscribers of `category`, or `nil` if it has none.
    func subscribers(of category: SegmentCategory) -> SubscriberRun? {
        categories.firstIndex(of: category).map { runs[$0] }
    }

    /// Number of registrations of `category`.
    func count(of category: SegmentCategory) -> Int { subscribers(of: category)?.live ?? 0 }
}

/// The registry behind ``SegmentationManager``: copy-on-write snapshots for readers, a small lock
/// that only serializes writers (add/remove), and a count of pending first loads.
///
/// Adding copies at most one chunk of 64 entries and the category's list of chunks; a removal
/// deactivates the registration and leaves its entry behind without its closure (copying the
/// entry's chunk and the list of chunks), and the live entries move into fresh
/// chunks only when the entries left behind outnumber them (so that cost is amortized over the
/// removals that caused it).
///
/// Threading: every method may be called from any thread, including from inside a callback.
/// Readers (``snapshot()``) never lock. No user code runs under the writer lock.
final class CallbackRegistry: Sendable {
    private let current = ManagedAtomic<RegistrySnapshot>(.empty)
    /// Serializes writers; readers never take it. Holds the registrations by identity, so that a
    /// removal finds them without scanning its category.
    private let writer = Locked<[SegmentCallbackData.ID: [Registration]]>([:])
    private let pendingFirstLoadCount = Atomic<Int>(0)
    /// Grows with every removal. Delivery reads it once per check and again per callback (a load
    /// of a line that stays in cache); only when it moved, or when its snapshot holds removed
    /// entries, does delivery look at each registration's `active` flag. The increment is
    /// sequentially consistent, so a delivery that looks at a callback after
    /// ``remove(identity:category:)`` returned sees it (one that had looked just before still
    /// calls it once: the look and the call are not one step).
    ///
    /// An ``AtomicCell``, so the per-callback read is a plain load (a `ManagedAtomic` costs an
    /// indirect call first).
    private let removalEpochValue = AtomicCell<UInt64>(0)

    /// Entries left behind by removals that a category may hold before it is compacted, however
    /// few its live entries.
    private static let removedSlack = 64

    /// The current registrations (lock-free).
    ///
    /// Sequentially consistent, like the publication in ``add(_:)``: a registration then looks at
    /// whether the engine runs (and at the reload flag) after publishing, and the engine reads the
    /// registrations after it started (or took the flag), so one of the two sees the other (see
    /// `EngineChannels.requestReload()`). The fences say so: `ManagedAtomic` of a reference
    /// treats every ordering as acquiring-and-releasing, which does not order a later load.
    @inline(__always)
    func snapshot() -> RegistrySnapshot {
        Atomics.atomicMemoryFence(ordering: Atomics.AtomicUpdateOrdering.sequentiallyConsistent)
        return current.load(ordering: .sequentiallyConsistent)
    }

    /// Number of registrations whose first load has not been served yet.
    var pendingFirstLoads: Int { pendingFirstLoadCount.load(ordering: .acquiring) }

    /// The removal epoch (see `removalEpochValue`).
    @inline(__always)
    var removalEpoch: UInt64 { removalEpochValue.atomic.load(ordering: .acquiring) }

    /// Adds one registration of `data`.
    func add(_ data: SegmentCallbackData) {
        add([data])
    }

    /// Adds one registration of each value, in order, with a single snapshot update.
    func add(_ values: [SegmentCallbackData]) {
        let subscribers = values.map { Subscriber(onNewData: $0.onNewData, registration: Registration($0)) }
        let firstLoads = values.reduce(0) { $0 + ($1.isIncludeFirstLoad ? 1 : 0) }
        if firstLoads > 0 {
            pendingFirstLoadCount.add(firstLoads, ordering: .acquiringAndReleasing)
        }
        writer.withLock { byIdentity in
            var byCategory = current.load(ordering: .relaxed).byCategory
            for subscriber in subscribers {
                let category = subscriber.registration.category
                // Taken out of the dictionary while appending, so that a batch copies a shared
                // chunk once and then appends in place.
                var run = byCategory.removeValue(forKey: category) ?? .empty
                run.append(subscriber)
                byCategory[category] = run
                byIdentity[subscriber.registration.identity, default: []].append(subscriber.registration)
            }
            // Sequentially consistent: see `snapshot()`.
            current.store(RegistrySnapshot(byCategory: byCategory), ordering: .sequentiallyConsistent)
        }
        Atomics.atomicMemoryFence(ordering: Atomics.AtomicUpdateOrdering.sequentiallyConsistent)
    }

    /// Removes every registration with `identity`; returns how many were removed.
    @discardableResult
    func remove(identity: SegmentCallbackData.ID, category: SegmentCategory) -> Int {
        let removed: [Registration] = writer.withLock { byIdentity in
            guard let registrations = byIdentity[identity] else { return [] }
            let removed = registrations.filter { $0.category == category }
            guard !removed.isEmpty else { return [] }
            let kept = registrations.filter { $0.category != category }
            byIdentity[identity] = kept.isEmpty ? nil : kept
            // Deactivated before the new snapshot is published: a delivery that loads it and sees
            // the entries left behind (`hasRemoved`) finds them inactive.
            for registration in removed { registration.deactivate() }
            var byCategory = current.load(ordering: .relaxed).byCategory
            if var run = byCategory[category] {
                run.remove(removed)
                if run.live == 0 {
                    byCategory[category] = nil
                } else if run.count - run.live > max(run.live, Self.removedSlack) {
                    byCategory[category] = run.compacted()
                } else {
                    byCategory[category] = run
                }
            }
            current.store(RegistrySnapshot(byCategory: byCategory), ordering: .releasing)
            return removed
        }
        for registration in removed {
            releaseFirstLoad(of: registration)
        }
        if !removed.isEmpty { removalEpochValue.atomic.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        return removed.count
    }

    /// Records that `registration`'s first load was served or dropped, if it was still pending.
    /// Returns `true` if this call released it (the caller may serve it).
    @inline(__always)
    @discardableResult
    func releaseFirstLoad(of registration: Registration) -> Bool {
        guard registration.claimFirstLoad() else { return false }
        pendingFirstLoadCount.subtract(1, ordering: .acquiringAndReleasing)
        return true
    }

    /// Drops every pending first load (anonymize). Registrations stay.
    func clearPendingFirstLoads() {
        guard pendingFirstLoads > 0 else { return }
        for run in snapshot().byCategory.values {
            run.forEachLive { releaseFirstLoad(of: $0.registration) }
        }
    }

    /// Removes every registration (stop).
    func removeAll() {
        let old = writer.withLock { byIdentity in
            byIdentity.removeAll()
            return current.exchange(.empty, ordering: .acquiringAndReleasing)
        }
        for run in old.byCategory.values {
            run.forEachLive { subscriber in
                subscriber.registration.deactivate()
                releaseFirstLoad(of: subscriber.registration)
            }
        }
        removalEpochValue.atomic.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }
}
