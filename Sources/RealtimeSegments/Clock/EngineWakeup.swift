import Dispatch

/// The signal that wakes a sleeping engine thread: a binary "permit".
///
/// ``signal()`` makes the next (or the current) wait return; signals given while nobody waits are
/// remembered once, so a wake-up is never lost between "decide to sleep" and "sleep".
/// Custom ``SegmentsClock`` implementations call ``wait()`` or ``wait(untilUptimeNanoseconds:)``.
///
/// Threading: any thread may signal; only the engine thread waits.
public final class EngineWakeup: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    init() {}

    /// Wakes the waiting thread, or the next wait if none is waiting.
    public func signal() { semaphore.signal() }

    /// Waits for a signal.
    public func wait() { semaphore.wait() }

    /// Waits for a signal or until the monotonic uptime reaches `deadline` nanoseconds.
    public func wait(untilUptimeNanoseconds deadline: UInt64) {
        _ = semaphore.wait(timeout: DispatchTime(uptimeNanoseconds: deadline))
    }
}
