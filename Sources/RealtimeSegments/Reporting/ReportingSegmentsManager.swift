import Atomics
import Foundation
import Logging

/// Where reporting segments (Convert-style, SPEC §10) live: every visitor's segments, the
/// subscribers to their changes, and their persistence. Reached as ``SegmentsClient/reporting``;
/// a visitor's setters are on ``ReportingVisitor`` (``SegmentsClient/reportingVisitor(visitorId:)``).
///
/// ```swift
/// let token = client.reporting.subscribe { event in print(event.visitorId, event.segments) }
/// let visitor = try client.reportingVisitor(visitorId: "v-1")
/// visitor.setDefaultSegments(["country": "DE"])
/// client.reporting.unsubscribe(token)
/// ```
///
/// Events: every setter call publishes exactly one ``ReportingSegmentsEvent`` with the visitor's
/// full new segments, even when the call changed nothing (only unknown keys, an empty list, the same
/// values), as Convert does. Events of one visitor arrive in the order its changes were made.
/// Since an event holds the visitor's custom segments, with subscribers an append costs a copy of
/// the visitor's custom list; without subscribers no event is built and appends are in place.
///
/// Persistence: with ``SegmentsConfiguration/stateDirectory`` set, each visitor is one file in
/// `reporting-segments/`, written behind the setters on a background queue (updates between two
/// writes coalesce, the latest wins) and replaced atomically, so a crash leaves each visitor's old
/// or new state, never a corrupt one, and loses at most the changes not yet written (the last
/// batch of the write-behind queue). ``flush()`` and ``SegmentsClient/stop(timeout:)`` make every earlier change
/// durable, unless the write fails: that is logged, and the visitor is written again at the next
/// drain. Persisted visitors are restored by ``SegmentsClient/start()``, or by the first
/// ``SegmentsClient/reportingVisitor(visitorId:)`` if that comes first. A corrupt file is logged as
/// a `Segments:` error and skipped. Without a state directory everything stays in memory.
///
/// Threading: every method may be called from any thread. Handlers run on a background serial
/// queue, one at a time, never on the setter's thread and never under a lock.
///
/// Errors: none are thrown; unknown keys and I/O failures are logged as `Segments:` lines.
public final class ReportingSegmentsManager: Sendable {
    private let store: ReportingSegmentsStore
    private let writer: ReportingWriteBehind?
    private let fileStore: ReportingFileStore?
    private let broadcaster: Broadcaster<ReportingSegmentsEvent>
    private let logger: Logger
    private let restored = ManagedAtomic<Bool>(false)
    /// Set when the client gives its state directory up: a restore after that changes no file.
    private let storageDetached = ManagedAtomic<Bool>(false)
    /// Held only while restoring, so concurrent first users wait for the restored state, and a
    /// client giving its directory up waits for a restore that may still change files in it.
    private let restoreGate = Locked(())
    /// Runs inside a restore once it has decided whether to tidy, before the files are read (tests
    /// hold a restore with it).
    private let duringRestore: (@Sendable () -> Void)?

    init(
        stateDirectory: URL?, logger: Logger,
        beginWork: @escaping @Sendable () -> Void = {}, endWork: @escaping @Sendable () -> Void = {},
        beforeWrite: (@Sendable () -> Void)? = nil, duringRestore: (@Sendable () -> Void)? = nil,
        changedForTesting: (@Sendable () -> Void)? = nil
    ) {
        self.duringRestore = duringRestore
        self.logger = logger
        let store = ReportingSegmentsStore(tracksDirty: stateDirectory != nil, changedForTesting: changedForTesting)
        self.store = store
        let fileStore = stateDirectory.map { ReportingFileStore(stateDirectory: $0, logger: logger) }
        self.fileStore = fileStore
        writer = fileStore.map { ReportingWriteBehind(store: store, fileStore: $0, beforeWrite: beforeWrite) }
        broadcaster = Broadcaster(label: "RealtimeSegments.reporting.delivery", beginWork: beginWork, endWork: endWork)
    }

    // MARK: Subscriptions

    /// Calls `handler` with every ``ReportingSegmentsEvent`` published after this returns, on a
    /// background serial queue, in publish order.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (ReportingSegmentsEvent) -> Void) -> ReportingSubscription {
        ReportingSubscription(id: broadcaster.subscribe(handler))
    }

    /// Ends `subscription`: after this returns, no event that reaches the handler calls it, but
    /// one being published that had already checked it may still make that one call (one already
    /// running finishes). Returns `false` if it was not subscribed.
    @discardableResult
    public func unsubscribe(_ subscription: ReportingSubscription) -> Bool {
        broadcaster.unsubscribe(subscription.id)
    }

    /// Blocks until every event published before this call has been handled. Package-level:
    /// RealtimeSegmentsTesting's `waitForDeliveries()` is its public face. Not from a handler (it
    /// would wait for itself).
    package func waitUntilDelivered() {
        broadcaster.waitForDeliveries()
    }

    // MARK: Persistence

    /// Blocks until every change made before this call has been written (a no-op without a state
    /// directory). Not from a handler. A write that fails (a full disk, a directory that cannot be
    /// created) is logged as a `Segments:` error and its visitor is kept for the next write, which
    /// the next change of any visitor or the next `flush()` starts.
    public func flush() {
        writer?.flush()
    }

    /// Writes every change made before this call and nothing after (see
    /// ``ReportingWriteBehind/detach()``): the client gives its state directory up.
    func detachStorage() {
        storageDetached.store(true, ordering: .releasing)
        waitForARestoreInProgress()
        writer?.detach()
    }

    /// Returns once no restore is running. A restore that starts after the detach changes no file
    /// (it reads `storageDetached`); one already running may, so the directory is not given up
    /// before it ends.
    private func waitForARestoreInProgress() {
        restoreGate.withLock { _ in }
    }

    /// ``detachStorage()`` without waiting for the last writes; `then` runs once they are done
    /// (at once without a state directory).
    func detachStorageWithoutWaiting(then: @escaping @Sendable () -> Void = {}) {
        storageDetached.store(true, ordering: .releasing)
        waitForARestoreInProgress()
        guard let writer else { return then() }
        writer.detachWithoutWaiting(then: then)
    }

    /// Files and bytes written by persistence so far (zero without a state directory). Fewer files
    /// than setter calls means updates coalesced.
    public var persistedWrites: (files: Int, bytes: Int) { writer?.written ?? (0, 0) }

    /// Number of visitors with segments (restored ones included).
    public var visitorCount: Int {
        restoreIfNeeded()
        return store.visitorCount
    }

    /// Whether the persisted visitors have been loaded: read by tests, which cannot ask through
    /// the public API without loading them.
    var hasRestored: Bool { restored.load(ordering: .acquiring) }

    /// Loads the persisted visitors once; later calls return at once. What the restore has to say
    /// is logged after the gate is released: a log handler is app code, and one that reached this
    /// manager (from any thread) would otherwise wait for the gate it holds.
    func restoreIfNeeded() {
        if restored.load(ordering: .acquiring) { return }
        let lines = restoreGate.withLock { _ -> [ReportingFileStore.LogLine] in
            guard !restored.load(ordering: .acquiring) else { return [] }
            var lines: [ReportingFileStore.LogLine] = []
            if let fileStore {
                let tidying = !storageDetached.load(ordering: .acquiring)
                duringRestore?()
                let loaded = fileStore.loadAll(tidying: tidying)
                store.restore(loaded.entries)
                lines = loaded.lines
                lines.append(.init(level: .debug, text: "Segments: Restored reporting segments of \(loaded.entries.count) visitors"))
            }
            restored.store(true, ordering: .releasing)
            return lines
        }
        for line in lines { logger.log(level: line.level, "\(line.text)") }
    }

    // MARK: Visitor operations (through ReportingVisitor)

    func segments(of visitorId: String) -> ReportingSegments {
        store.segments(of: visitorId)
    }

    /// Merge: every known key in `values` overwrites its segment; segments not named are kept.
    func setDefaultSegments(_ values: [String: String], visitorId: String) {
        for key in values.keys.filter({ ReportingSegmentKey(rawValue: $0) == nil }).sorted() {
            logger.warning("Segments: Unknown reporting segment key '\(key)' ignored for visitor \(visitorId)")
        }
        apply(visitorId) { segments in
            for (key, value) in values {
                if let segmentKey = ReportingSegmentKey(rawValue: key) { segments[segmentKey] = value }
            }
        }
    }

    func setCustomSegments(_ values: [String], visitorId: String) {
        apply(visitorId) { $0.customSegments.append(contentsOf: values) }
    }

    private func apply(_ visitorId: String, _ change: (inout ReportingSegments) -> Void) {
        let broadcaster = broadcaster
        store.update(visitorId, change) { segments in
            // Nobody to tell: skip the event, whose copy of `customSegments` would otherwise make
            // the next append copy the whole list instead of appending in place.
            guard broadcaster.subscriberCount > 0 else { return }
            // Under the visitor's lock so events follow the order of the changes; publish only
            // queues the delivery.
            broadcaster.publish(ReportingSegmentsEvent(visitorId: visitorId, segments: segments))
        }
        writer?.scheduleDrain()
    }
}
