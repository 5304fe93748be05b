import Dispatch
import Synchronization

/// The signal that wakes a sleeping engine thread: a binary "permit".
///
/// ``signal()`` makes the next (or the current) wait return; signals given while nobody waits are
/// remembered once, however many there were, so a wake-up is never lost between "decide to sleep"
/// and "sleep", and a burst of them costs the engine one extra turn at most.
/// Custom ``SegmentsClock`` implementations call ``wait()`` or ``wait(untilUptimeNanoseconds:)``.
///
/// Threading: any thread may signal; only the engine thread waits.
public final class EngineWakeup: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// Set by the first signal after a wait took the permit; only that signal posts to the
    /// semaphore, so its count never exceeds one. Signals while it is set are merged into it.
    private let permit = Atomic<Bool>(false)

    init() {}

    /// Wakes the waiting thread, or the next wait if none is waiting.
    public func signal() {
        if !permit.exchange(true, ordering: .acquiringAndReleasing) { semaphore.signal() }
    }

    /// Waits for a signal.
    public func wait() {
        semaphore.wait()
        takePermit()
    }

    /// Waits for a signal or until the monotonic uptime reaches `deadline` nanoseconds. Returns
    /// `true` if a signal ended the wait, `false` if the deadline did.
    @discardableResult
    public func wait(untilUptimeNanoseconds deadline: UInt64) -> Bool {
        guard semaphore.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .success else { return false }
        takePermit()
        return true
    }

    /// Clears the permit after its post was taken from the semaphore. A read-modify-write, so the
    /// waiter also sees what the signals merged into this wake-up published before signalling.
    private func takePermit() {
        _ = permit.exchange(false, ordering: .acquiringAndReleasing)
    }
}
