/// The task executor of the engine's fetches and links, for a transport that declares
/// ``SegmentsTransport/neverBlocks``: each step of such a call runs on the engine thread, as a
/// control message, between the engine's other work.
///
/// A fetch's result is needed on the engine thread. Run on Swift's cooperative pool, a fetch that
/// returned woke a pool thread (for AsyncHTTPClient, from its event loop), which then posted the
/// result and woke the engine: two thread wake-ups between the response and the diff, both inside
/// the notification latency (data received → last callback). Here the response resumes the call on the engine thread
/// itself: one wake-up from an event loop, none for a transport that answers without suspending
/// (the in-memory ones). Uploads are left on the pool: nothing latency-critical waits for them (the
/// check they trigger is debounced), and encoding a batch of events would hold up the engine.
///
/// After the engine thread has ended, a step that still arrives (a call resumed late after `stop()`)
/// runs on a background thread instead (``EngineChannels``' `refuse`), so no task is left
/// suspended forever.
///
/// Threading: `enqueue` from any thread. Tasks retain their preferred executor, and this one
/// references only the channels, so it lives as long as the calls that use it.
final class EngineTaskExecutor: TaskExecutor {
    private let channels: EngineChannels

    init(channels: EngineChannels) {
        self.channels = channels
    }

    func enqueue(_ job: consuming ExecutorJob) {
        channels.post(.runJob(UnownedJob(job), on: asUnownedTaskExecutor()))
    }
}
