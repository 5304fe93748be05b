#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The task executor of the engine's fetches and links, for a transport that declares
/// ``SegmentsTransport/neverBlocks``: each step of such a call runs on the engine thread, as a
/// control message, between the engine's other work.
///
/// A fetch's result is needed on the engine thread. Run on Swift's cooperative pool, a fetch that
/// returned woke a pool thread (for AsyncHTTPClient, from its event loop), which then posted the
/// result and woke the engine: two thread wake-ups between the response and the diff, both inside
/// the notification latency (data received → last callback). Here the response resumes the call on the engine thread
/// itself: one wake-up from an event loop, none for a transport that answers without suspending
/// (the in-memory ones). Uploads run elsewhere (a serial queue of the engine's own): nothing
/// latency-critical waits for them (the check they trigger is debounced), and encoding a batch of
/// events would hold up the engine.
///
/// After the engine thread has ended, a step that still arrives (a call resumed late after `stop()`)
/// runs on a background thread instead (``EngineChannels``' `refuse`), so no task is left
/// suspended forever.
///
/// Threading: `enqueue` from any thread; ``runStep(_:)`` on the engine thread, in its turn.
/// Tasks retain their preferred executor, and this one references only the channels, so it lives
/// as long as the calls that use it.
final class EngineTaskExecutor: TaskExecutor {
    private let channels: EngineChannels
    /// The thread inside ``runStep(_:)`` now, 0 while none. Only that thread stores its own
    /// identifier, and it clears it before it leaves, so a thread that reads its own identifier
    /// here is running a step in the engine's turn (no other thread can have put it there).
    private let steppingThread = Atomic<UInt>(0)

    init(channels: EngineChannels) {
        self.channels = channels
    }

    func enqueue(_ job: consuming ExecutorJob) {
        channels.post(.runJob(UnownedJob(job), on: self))
    }

    /// Runs a step this executor enqueued, on the calling thread: the engine thread, in its turn.
    // Out of line: `segments-bench`'s instruction counts of a check collect inside it (a fetch's
    // steps, the check applied in place, the task's end).
    @inline(never)
    func runStep(_ job: UnownedJob) {
        steppingThread.store(Self.currentThread, ordering: .relaxed)
        job.runSynchronously(on: asUnownedTaskExecutor())
        steppingThread.store(0, ordering: .relaxed)
    }

    /// Runs a step elsewhere than in the engine's turn (after the engine thread has ended).
    func runStepOutsideTurn(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }

    /// Whether the caller is a step that ``runStep(_:)`` runs now on this thread, that is, code
    /// inside the engine's turn, free to touch the engine's state. `false` on any other thread,
    /// and in a step run by ``runStepOutsideTurn(_:)``.
    var isInTurn: Bool {
        steppingThread.load(ordering: .relaxed) == Self.currentThread
    }

    private static var currentThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())  // a pointer on Darwin and musl
        #endif
    }
}
