/// A clock whose time moves only when told to (the `ManualClock` of RealtimeSegmentsTesting).
///
/// The engine cannot wait for a deadline on such a clock in real time, so it hands its sleep to
/// the clock (``EngineWakeup/wait(until:on:)``), which ends it when a step of its time reaches the
/// deadline. Package-level: an app's ``SegmentsClock`` implements `now()` and
/// `wallClockSeconds()` only, and the engine sleeps on real uptime for it.
///
/// Threading: ``sleep(until:wakeup:)`` is called on the engine thread; the clock's steps come from
/// any thread.
package protocol SteppedClock: SegmentsClock {
    /// Blocks the calling engine thread until the clock's time reaches `deadline` or `wakeup` is
    /// signalled, whichever comes first; returns at once if `deadline` has passed. A `nil`
    /// deadline waits for the signal only.
    func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup)
}
