import Dispatch

/// A task executor that runs every step on a serial Dispatch queue of its own.
///
/// A serial queue targets an overcommit root queue, which gets a thread even while every thread
/// of Swift's cooperative pool is blocked, and a step that blocks holds up only this queue.
/// - The engine's uploads: ``SegmentsClient/stop(timeout:)`` blocks its thread until the final
///   upload is over. On the pool, `stop()` called from async code on every pool thread (clients
///   torn down concurrently in a task group) left no thread for that upload, and every call ran
///   into its timeout with its events not uploaded. An engine has at most one upload task at a
///   time, so a serial queue costs it no concurrency.
/// - The fetches and links of a transport that may block (``SegmentsTransport/neverBlocks`` is
///   `false`), one executor per fetch: a fetch that blocked a pool thread, one per client, left the
///   app's own tasks no thread to run on. The engine has at most one check fetch and one pull
///   fetch in flight, so this costs it no concurrency.
/// - The qualified requests of a transport that may block (``SegmentsTransport/neverBlocks`` is
///   `false`), one executor per request: on the one shared ``QualifiedFetchExecutor`` thread, a
///   request that blocks kept every other user's request, of every client, from starting.
final class SerialQueueTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue
    /// Marks the queue's thread while it runs a step (`nil`: not marked).
    private let mark: ThreadMark?

    init(label: String, marking mark: ThreadMark? = nil) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.mark = mark
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            self.mark?.enter()
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.mark?.leave()
        }
    }
}
