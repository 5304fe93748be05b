import Atomics
import Dispatch
import Foundation
import Logging

/// Invokes the callbacks of one check, off the engine thread.
///
/// One serial queue per category, so a slow callback delays only its own category, and checks of
/// one category are delivered in order. A check's delivery for a category is one block: the payload
/// is built once and the same array is handed to every callback (no per-callback dispatch or
/// allocation). Before each callback the block re-checks the customer generation, so once a
/// customer switch has happened no callback receives the previous customer's data; and it skips
/// registrations removed meanwhile.
///
/// Threading: ``deliver(_:)`` is called by the engine thread only; blocks run on the category queues.
final class DeliveryExecutor {
    /// One category's delivery for one check.
    struct Job: Sendable {
        var category: SegmentCategory
        /// The full current list of the category (server order), `[]` if the response lacks it.
        var segments: [Segment]
        /// `true` if the category changed: notify every registration. `false`: only pending first loads.
        var notifyAll: Bool
        /// The customer generation the data belongs to.
        var generation: UInt64
    }

    private let registry: CallbackRegistry
    private let identity: IdentityCell
    private let channels: EngineChannels
    private let mode: DeliveryMode
    private let logger: Logger
    private let counters: EngineCounters
    private var queues: [SegmentCategory: DispatchQueue] = [:]

    init(
        registry: CallbackRegistry, identity: IdentityCell, channels: EngineChannels, mode: DeliveryMode,
        logger: Logger, counters: EngineCounters
    ) {
        self.registry = registry
        self.identity = identity
        self.channels = channels
        self.mode = mode
        self.logger = logger
        self.counters = counters
    }

    /// Schedules `job` on its category's queue.
    func deliver(_ job: Job) {
        let queue = queue(for: job.category)
        let registry = registry
        let identity = identity
        let channels = channels
        let mode = mode
        let logger = logger
        let counters = counters
        channels.beginWork()
        queue.async {
            defer { channels.endWork() }
            let registrations = registry.snapshot().registrations(of: job.category)
            let notified: Int
            switch mode {
            case .ordered:
                notified = Self.run(job, registrations[...], registry: registry, identity: identity)
            case .parallel:
                notified = Self.runParallel(job, registrations, registry: registry, identity: identity)
            }
            counters.callbacksNotified.wrappingIncrement(by: notified, ordering: .relaxed)
            if identity.generation != job.generation {
                counters.staleDeliveriesDropped.wrappingIncrement(ordering: .relaxed)
                logger.debug("\(SegmentsLogMessage.newDataIgnoredDifferentCustomer)", metadata: ["category": "\(job.category)"])
            } else {
                logger.trace("Segments: Notified \(notified) callbacks of category \(job.category)")
            }
        }
    }

    private func queue(for category: SegmentCategory) -> DispatchQueue {
        if let queue = queues[category] { return queue }
        let queue = DispatchQueue(label: "RealtimeSegments.delivery.\(category.name)", qos: .utility)
        queues[category] = queue
        return queue
    }

    /// Runs the callbacks of `registrations` in order; returns how many were invoked.
    private static func run(
        _ job: Job, _ registrations: ArraySlice<Registration>, registry: CallbackRegistry, identity: IdentityCell
    ) -> Int {
        var notified = 0
        for registration in registrations {
            // The generation is re-read before every callback: a switch that happened while this
            // loop ran stops it here, and the remaining first loads stay pending.
            guard identity.generation == job.generation else { break }
            guard registration.isActive else { continue }
            if job.notifyAll {
                registry.releaseFirstLoad(of: registration)
            } else {
                guard registration.hasPendingFirstLoad, registry.releaseFirstLoad(of: registration) else { continue }
            }
            registration.onNewData(job.segments)
            notified += 1
        }
        return notified
    }

    private static func runParallel(
        _ job: Job, _ registrations: [Registration], registry: CallbackRegistry, identity: IdentityCell
    ) -> Int {
        let workers = ProcessInfo.processInfo.activeProcessorCount
        guard workers > 1, registrations.count >= 2 * workers else {
            return run(job, registrations[...], registry: registry, identity: identity)
        }
        let chunk = (registrations.count + workers - 1) / workers
        let total = ManagedAtomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = worker * chunk
            let end = min(start + chunk, registrations.count)
            guard start < end else { return }
            let notified = run(job, registrations[start..<end], registry: registry, identity: identity)
            total.wrappingIncrement(by: notified, ordering: .relaxed)
        }
        return total.load(ordering: .acquiring)
    }
}
