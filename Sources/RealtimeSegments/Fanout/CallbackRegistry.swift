import Atomics
import Foundation
import Synchronization

/// One registration as delivery sees it: the callback next to its registration, stored inline in a
/// contiguous array so the delivery loop calls closures straight from the array (as a plain closure
/// loop does) and touches the registration object only when a removal or a first load needs it.
struct Subscriber: Sendable {
    let onNewData: @Sendable ([Segment]) -> Void
    let registration: Registration
}

/// The registered callbacks, per category, as an immutable snapshot.
///
/// A snapshot is never mutated: add and remove build a new one and publish it atomically
/// (read-copy-update), so delivery iterates what it loaded without a lock and without copying.
final class RegistrySnapshot: AtomicReference, Sendable {
    /// Subscribers per category, in registration order.
    let byCategory: [SegmentCategory: ContiguousArray<Subscriber>]
    /// Number of registrations over all categories.
    let count: Int

    init(byCategory: [SegmentCategory: ContiguousArray<Subscriber>]) {
        self.byCategory = byCategory
        self.count = byCategory.values.reduce(0) { $0 + $1.count }
    }

    static let empty = RegistrySnapshot(byCategory: [:])

    /// The subscribers of `category`, in registration order.
    func subscribers(of category: SegmentCategory) -> ContiguousArray<Subscriber> { byCategory[category] ?? [] }
}

/// The registry behind ``SegmentationManager``: copy-on-write snapshots for readers, a small lock
/// that only serializes writers (add/remove), and a count of pending first loads.
///
/// Threading: every method may be called from any thread, including from inside a callback.
/// Readers (``snapshot()``) never lock. No user code runs under the writer lock.
final class CallbackRegistry: Sendable {
    private let current = ManagedAtomic<RegistrySnapshot>(.empty)
    /// Serializes writers only; readers never take it.
    private let writerLock = NSLock()
    private let pendingFirstLoadCount = Atomic<Int>(0)
    /// Grows with every removal. Delivery reads it once per check and again per callback (a load
    /// of a line that stays in cache); only when it moved does delivery look at each registration's
    /// `active` flag. The increment is a read-modify-write, a full barrier, so a delivery that
    /// starts a callback after ``remove(identity:category:)`` returned sees it.
    private let removalEpochValue = ManagedAtomic<UInt64>(0)

    /// The current registrations (lock-free).
    @inline(__always)
    func snapshot() -> RegistrySnapshot { current.load(ordering: .acquiring) }

    /// Number of registrations whose first load has not been served yet.
    var pendingFirstLoads: Int { pendingFirstLoadCount.load(ordering: .acquiring) }

    /// The removal epoch (see `removalEpochValue`).
    @inline(__always)
    var removalEpoch: UInt64 { removalEpochValue.load(ordering: .acquiring) }

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
        writerLock.withLock {
            var byCategory = current.load(ordering: .relaxed).byCategory
            for subscriber in subscribers {
                byCategory[subscriber.registration.category, default: []].append(subscriber)
            }
            current.store(RegistrySnapshot(byCategory: byCategory), ordering: .releasing)
        }
    }

    /// Removes every registration with `identity`; returns how many were removed.
    @discardableResult
    func remove(identity: SegmentCallbackData.ID, category: SegmentCategory) -> Int {
        let removed: [Registration] = writerLock.withLock {
            var byCategory = current.load(ordering: .relaxed).byCategory
            guard let list = byCategory[category] else { return [] }
            let removed = list.filter { $0.registration.identity == identity }.map(\.registration)
            guard !removed.isEmpty else { return [] }
            let kept = ContiguousArray(list.lazy.filter { $0.registration.identity != identity })
            byCategory[category] = kept.isEmpty ? nil : kept
            current.store(RegistrySnapshot(byCategory: byCategory), ordering: .releasing)
            return removed
        }
        for registration in removed {
            registration.deactivate()
            releaseFirstLoad(of: registration)
        }
        if !removed.isEmpty { removalEpochValue.wrappingIncrement(ordering: .sequentiallyConsistent) }
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
        for list in snapshot().byCategory.values {
            for subscriber in list { releaseFirstLoad(of: subscriber.registration) }
        }
    }

    /// Removes every registration (stop).
    func removeAll() {
        let old = writerLock.withLock {
            current.exchange(.empty, ordering: .acquiringAndReleasing)
        }
        for list in old.byCategory.values {
            for subscriber in list {
                subscriber.registration.deactivate()
                releaseFirstLoad(of: subscriber.registration)
            }
        }
        removalEpochValue.wrappingIncrement(ordering: .sequentiallyConsistent)
    }
}
