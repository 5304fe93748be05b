import Foundation

/// The task executor that runs every qualified-segments transport call: one dedicated thread,
/// outside Swift's cooperative pool.
///
/// The blocking ``QualifiedUserContext/fetchQualifiedSegmentsAndWait(options:)`` parks its caller's
/// thread until the answer arrives. If the request itself needed a cooperative-pool thread, callers
/// blocking every pool thread (a handful of them on a small machine) would wait forever for a
/// request that can never run. Here the request runs on this thread instead, so blocking any
/// number of pool threads cannot starve it.
///
/// One thread is enough: a transport call spends its time suspended on I/O (AsyncHTTPClient
/// resumes it here after each event), so the thread multiplexes all requests in flight. It does
/// only the short steps between suspensions and never runs user callbacks.
///
/// Threading: `enqueue` may be called from any thread. The thread starts with the first job and
/// lives for the rest of the process.
final class QualifiedFetchExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `started` are only read or written with `condition` locked;
    // everything else is immutable.

    /// The process-wide executor.
    static let shared = QualifiedFetchExecutor()

    /// The thread's name, as `top -H`, `perf` and debuggers show it (at most 15 characters: see
    /// ``ThreadName``).
    static let threadName = "Segments.qualif"

    /// The executor's thread, once it runs: a blocking fetch made there (from a log handler)
    /// would wait for a request only this thread can run.
    let thread = ThreadMark()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var started = false

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if !started {
            started = true
            let thread = Thread { [self] in
                ThreadName.setForCurrentThread(Self.threadName)
                run()
            }
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func run() {
        thread.enter()
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            // Take every queued job at once, keeping the lock out of the jobs' run time.
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
