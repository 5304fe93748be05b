import Atomics
import Dispatch

/// Persists changed visitors in the background: a setter marks its visitor dirty (in the store,
/// under the visitor's lock) and asks for a drain; one serial queue writes the latest value of
/// every dirty visitor. Rapid updates of one visitor between two drains coalesce into one write
/// (the latest wins), so a burst of setters costs one file replace per visitor, not per call.
///
/// Crash guarantee: each file is replaced atomically, so after a crash every visitor has a state
/// that some setter produced, never a torn one. What is lost is the changes not yet renamed into
/// place: those after the last completed file replace of their visitor (in practice the last batch,
/// since every replace costs an fsync). A durable setter would pay that fsync on every call, hence
/// write-behind. ``flush()`` is the barrier that makes everything set before it durable; a write
/// that fails is logged and its visitor is kept for the next drain, not retried in a loop.
///
/// Threading: every method may be called from any thread; ``flush()`` blocks.
final class ReportingWriteBehind: Sendable {
    private let store: ReportingSegmentsStore
    private let fileStore: ReportingFileStore
    private let queue = DispatchQueue(label: "RealtimeSegments.reporting.persistence", qos: .utility)
    /// Where background writes log their lines, in the order of the writes, off ``queue``.
    private let logQueue = DispatchQueue(label: "RealtimeSegments.reporting.log", qos: .utility)
    /// A drain is queued and has not started taking values yet.
    private let drainQueued = ManagedAtomic<Bool>(false)
    private let filesWritten = ManagedAtomic<Int>(0)
    private let bytesWritten = ManagedAtomic<Int>(0)
    /// Set once the client gave its state directory up: nothing is written any more.
    private let detached = ManagedAtomic<Bool>(false)
    /// Whether the line saying that later changes stay in memory was logged.
    private let detachedChangeLogged = ManagedAtomic<Bool>(false)

    /// Runs before each batch is written (tests hold the queue with it).
    private let beforeWrite: (@Sendable () -> Void)?

    init(store: ReportingSegmentsStore, fileStore: ReportingFileStore, beforeWrite: (@Sendable () -> Void)? = nil) {
        self.store = store
        self.fileStore = fileStore
        self.beforeWrite = beforeWrite
    }

    /// Asks for a drain after a visitor was marked dirty. Lock-free; queues at most one drain.
    ///
    /// While a drain is queued this is one plain load: a burst of setters does not write the shared
    /// flag's cache line on every call. Skipping on a `true` read, even a stale one, is safe because
    /// the caller marked its visitor dirty under the stripe lock before this call, and ``drain()``
    /// stores `false` before `takeDirty()` takes every stripe lock in turn. Let the `true` read
    /// come from the exchange that queued drain D. If D had taken this stripe's lock before the
    /// caller did, D's `store(false)` would happen before this load (through that lock) and, being
    /// later than the exchange, would hide its `true` from it. So D takes the stripe's lock after the
    /// caller released it, and D's `takeDirty()` sees the mark.
    func scheduleDrain() {
        guard !drainQueued.load(ordering: .relaxed),
            drainQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { [self] in logElsewhere(drain()) }
    }

    /// Writes every visitor changed before this call, and waits for it; logs its failures on the
    /// calling thread. Not from the persistence queue.
    func flush() {
        log(queue.sync { drain() })
    }

    /// Writes every visitor changed before this call, waits for it, and writes nothing after: the
    /// client gives its state directory up (another client may hold it next). Later changes stay
    /// in memory, with one `Segments:` warning. Not from the persistence queue.
    func detach() {
        log(queue.sync { drainThenDetach() })
    }

    /// ``detach()`` without waiting: what was changed before this call is still written, on the
    /// persistence queue, before it detaches; then `then` runs there.
    func detachWithoutWaiting(then: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            let lines = drainThenDetach()
            then()
            logElsewhere(lines)
        }
    }

    /// On the persistence queue: the last drain, then nothing more. Returns the lines to log.
    private func drainThenDetach() -> [ReportingFileStore.LogLine] {
        let lines = drain()
        // A visitor whose last write failed (logged) is not written any more either: dropped from
        // the dirty set, so it does not read as a change made after the detach.
        _ = store.takeDirty()
        detached.store(true, ordering: .releasing)
        return lines
    }

    private func log(_ lines: [ReportingFileStore.LogLine]) {
        for line in lines { fileStore.logger.log(level: line.level, "\(line.text)") }
    }

    /// Logs from the persistence queue without holding it: a handler that flushes, or waits for a
    /// thread that does, would otherwise wait for itself.
    private func logElsewhere(_ lines: [ReportingFileStore.LogLine]) {
        guard !lines.isEmpty else { return }
        logQueue.async { [self] in log(lines) }
    }

    /// Files and bytes written so far.
    var written: (files: Int, bytes: Int) {
        (filesWritten.load(ordering: .relaxed), bytesWritten.load(ordering: .relaxed))
    }

    /// On the persistence queue: writes the dirty visitors; returns the lines to log.
    private func drain() -> [ReportingFileStore.LogLine] {
        // Cleared before taking values: a change after this point queues the next drain.
        drainQueued.store(false, ordering: .releasing)
        if detached.load(ordering: .acquiring) {
            // Only a change made after the detach calls for the line: a second detach (another
            // stop(), the client's release) finds none.
            if !store.takeDirty().isEmpty, !detachedChangeLogged.exchange(true, ordering: .relaxed) {
                return [.init(level: .warning, text: "Segments: Reporting segments changed after stop() stay in memory: the client no longer holds \(fileStore.directory.deletingLastPathComponent().path)")]
            }
            return []
        }
        let dirty = store.takeDirty()
        if !dirty.isEmpty { beforeWrite?() }
        let outcome = fileStore.write(dirty)
        filesWritten.wrappingIncrement(by: outcome.files, ordering: .relaxed)
        bytesWritten.wrappingIncrement(by: outcome.bytes, ordering: .relaxed)
        // Kept for the next drain (the next change or flush), so a failed write loses nothing
        // while the process runs; not retried here, where a disk that keeps failing would spin.
        store.markDirty(outcome.failed)
        return outcome.lines
    }
}
