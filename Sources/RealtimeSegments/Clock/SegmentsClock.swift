/// The time source of the engine: debounce, max-wait, cache TTL, retry backoff and event timestamps.
///
/// The engine reads time only through its clock. Production code uses ``SystemClock`` (the
/// default); tests inject the `ManualClock` of the RealtimeSegmentsTesting product and drive every
/// timing rule without sleeping. An app's own clock implements ``now()`` and
/// ``wallClockSeconds()`` (and ``continuousNow()`` when it can tell the device's sleep apart):
/// the engine waits for its deadlines on real (monotonic) time, and looks at the clock again when
/// it wakes, so a clock that runs slower than real time only makes the engine wake early and
/// sleep again.
///
/// Threading: every method may be called from any thread, the engine thread included, so neither
/// should block.
public protocol SegmentsClock: Sendable {
    /// Monotonic now; never goes backwards.
    func now() -> SegmentsInstant
    /// Wall-clock time in seconds since 1970, used to stamp tracked events. Called on the engine
    /// thread as it takes events from the ring: once for the events already claimed when it
    /// reads, again for events claimed after that.
    func wallClockSeconds() -> Double
    /// Monotonic now that keeps counting while the device sleeps, for how old a cached answer is
    /// (the pull cache's `cacheTTL`, the qualified-segments cache's timeout): an answer ages while
    /// a phone sleeps, where the engine's timers (``now()``) stand still. Never goes backwards.
    /// Defaults to ``now()``, for clocks that do not tell sleep apart.
    func continuousNow() -> SegmentsInstant
}

extension SegmentsClock {
    public func continuousNow() -> SegmentsInstant { now() }
}
