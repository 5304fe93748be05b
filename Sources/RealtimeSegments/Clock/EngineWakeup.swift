import Dispatch
import Synchronization

/// The signal that wakes a sleeping engine thread: a binary "permit".
///
/// ``signal()`` makes the next (or the current) wait return; signals given while nobody waits are
/// remembered once, however many there were, so a wake-up is never lost between "decide to sleep"
/// and "sleep", and a burst of them costs the engine one extra turn at most.
///
/// Package-level: the engine's sleep is no app's business. A ``SteppedClock`` (the testing
/// module's manual clock) holds on to the wake-ups of engines sleeping on it, to signal them when
/// its time passes their deadline.
///
/// Threading: any thread may signal; only the engine thread waits.
package final class EngineWakeup: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// Set by the first signal after a wait took the permit; only that signal posts to the
    /// semaphore, so its count never exceeds one. Signals while it is set are merged into it.
    private let permit = Atomic<Bool>(false)

    init() {}

    /// Wakes the waiting thread, or the next wait if none is waiting.
    package func signal() {
        if !permit.exchange(true, ordering: .acquiringAndReleasing) { semaphore.signal() }
    }

    /// Waits for a signal.
    package func wait() {
        semaphore.wait()
        takePermit()
    }

    /// Waits for a signal or until the monotonic uptime reaches `deadline` nanoseconds. Returns
    /// `true` if a signal ended the wait, `false` if the deadline did.
    @discardableResult
    package func wait(untilUptimeNanoseconds deadline: UInt64) -> Bool {
        guard semaphore.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .success else { return false }
        takePermit()
        return true
    }

    /// Waits for a signal or until `clock` reaches `deadline`; without a deadline, for a signal
    /// only. The engine thread's sleep.
    ///
    /// A ``SteppedClock`` does the waiting itself: only its own steps move its time. Any other
    /// clock is taken to move with real time, so this waits, on monotonic uptime, for as long as
    /// the clock says is left; the caller looks at its clock again when this returns.
    func wait(until deadline: SegmentsInstant?, on clock: any SegmentsClock) {
        if let stepped = clock as? any SteppedClock {
            stepped.sleep(until: deadline, wakeup: self)
            return
        }
        guard let deadline else { return wait() }
        // The system clock's instants are uptime already: no second read of the time.
        if clock is SystemClock {
            wait(untilUptimeNanoseconds: deadline.nanoseconds)
            return
        }
        let left = deadline.duration(since: clock.now()).clampedNanoseconds
        let (end, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(left)
        wait(untilUptimeNanoseconds: overflow ? .max : end)
    }

    /// Clears the permit after its post was taken from the semaphore. A read-modify-write, so the
    /// waiter also sees what the signals merged into this wake-up published before signalling.
    private func takePermit() {
        _ = permit.exchange(false, ordering: .acquiringAndReleasing)
    }
}
