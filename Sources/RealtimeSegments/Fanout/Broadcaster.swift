import Atomics
import Dispatch

/// Subscription ids, unique in the process: a token of one broadcaster (one client's) never names a
/// subscriber of another.
private let nextSubscriptionId = ManagedAtomic<UInt64>(1)

/// Fan-out of a value to every subscriber, in publish order, off the publisher's thread.
///
/// The engine's fan-out for payloads other than a category's segment list (reporting segments
/// publish through it). Same shape as ``CallbackRegistry`` + ``DeliveryExecutor``: subscribers live
/// in an immutable snapshot published atomically (readers never lock, writers copy), each publish
/// is one block on a serial queue that hands the same payload to every subscriber, and a subscriber
/// removed meanwhile is skipped (found through a removal epoch, as in ``CallbackRegistry``).
///
/// Threading: every method may be called from any thread, including from inside a handler.
/// ``publish(_:)`` never blocks and never runs user code on the caller's thread. Handlers run on
/// the broadcaster's serial queue, one at a time, in publish order.
final class Broadcaster<Payload: Sendable>: Sendable {
    /// A subscriber: its handler and its `active` flag (cleared once on removal).
    final class Subscription: Sendable {
        let id: UInt64
        let handler: @Sendable (Payload) -> Void
        private let active = ManagedAtomic<Bool>(true)

        init(id: UInt64, handler: @escaping @Sendable (Payload) -> Void) {
            self.id = id
            self.handler = handler
        }

        var isActive: Bool { active.load(ordering: .acquiring) }
        func deactivate() { active.store(false, ordering: .releasing) }
    }

    /// The subscribers at one moment; never mutated after publication.
    final class Snapshot: AtomicReference, Sendable {
        let subscriptions: [Subscription]
        init(_ subscriptions: [Subscription]) { self.subscriptions = subscriptions }
    }

    private let current = ManagedAtomic<Snapshot>(Snapshot([]))
    /// Serializes writers only (readers never take it).
    private let writer = Locked<Void>(())
    /// Grows with every removal. A delivery reads it once when it starts and again before each
    /// handler (a load of a line that stays in cache); only when it moved does it look at the
    /// subscriber's `active` flag. The increment is a read-modify-write after `deactivate()`, so a
    /// delivery that starts a handler after ``unsubscribe(_:)`` returned sees the subscriber inactive.
    private let removalEpoch = ManagedAtomic<UInt64>(0)
    private let queue: DispatchQueue
    private let beginWork: @Sendable () -> Void
    private let endWork: @Sendable () -> Void

    /// - Parameters:
    ///   - label: the delivery queue's label.
    ///   - beginWork, endWork: called around every delivery block, so an idle wait
    ///     (RealtimeSegmentsTesting's `waitUntilIdle(timeout:)`) covers deliveries in flight.
    init(
        label: String, beginWork: @escaping @Sendable () -> Void = {}, endWork: @escaping @Sendable () -> Void = {}
    ) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.beginWork = beginWork
        self.endWork = endWork
    }

    /// Adds a subscriber; returns its id for ``unsubscribe(_:)``, unique in the process. It receives
    /// publishes made after this returns.
    func subscribe(_ handler: @escaping @Sendable (Payload) -> Void) -> UInt64 {
        let id = nextSubscriptionId.loadThenWrappingIncrement(ordering: .relaxed)
        return writer.withLock { _ in
            let subscription = Subscription(id: id, handler: handler)
            let old = current.load(ordering: .relaxed)
            current.store(Snapshot(old.subscriptions + [subscription]), ordering: .releasing)
            return subscription.id
        }
    }

    /// Removes the subscriber `id`. After this returns no publication that reaches the handler
    /// calls it, but one on the queue that had already checked it may still make that one call;
    /// one already running finishes. Returns `false` if there was no such subscriber.
    @discardableResult
    func unsubscribe(_ id: UInt64) -> Bool {
        let removed: Subscription? = writer.withLock { _ in
            let old = current.load(ordering: .relaxed)
            guard let index = old.subscriptions.firstIndex(where: { $0.id == id }) else { return nil }
            var kept = old.subscriptions
            let removed = kept.remove(at: index)
            current.store(Snapshot(kept), ordering: .releasing)
            return removed
        }
        guard let removed else { return false }
        removed.deactivate()
        removalEpoch.wrappingIncrement(ordering: .sequentiallyConsistent)
        return true
    }

    /// Number of subscribers now.
    var subscriberCount: Int { current.load(ordering: .acquiring).subscriptions.count }

    /// Delivers `payload` to every subscriber, asynchronously, after every earlier publish.
    func publish(_ payload: Payload) {
        let removalEpoch = removalEpoch
        // The subscribers of this moment, not of when the block runs: one that subscribes after
        // this call returns does not receive it. The epoch is read first (as in
        // `DeliveryExecutor.runDelivery`): a removal that lands after it is seen as a moved epoch.
        let epoch = removalEpoch.load(ordering: .acquiring)
        let subscriptions = current.load(ordering: .acquiring).subscriptions
        let endWork = endWork
        beginWork()
        queue.async {
            defer { endWork() }
            for subscription in subscriptions {
                if removalEpoch.load(ordering: .acquiring) != epoch, !subscription.isActive { continue }
                subscription.handler(payload)
            }
        }
    }

    /// Blocks until every publish made before this call has been delivered. Not from a handler.
    func waitForDeliveries() {
        queue.sync {}
    }
}
