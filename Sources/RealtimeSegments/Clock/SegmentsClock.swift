/// The time source of the engine: debounce, max-wait, cache TTL, retry backoff and event timestamps.
///
/// The engine reads time only through its clock, so tests inject a ``ManualClock`` and drive every
/// timing rule without sleeping. Production code uses ``SystemClock`` (the default).
///
/// Threading: every method may be called from any thread.
public protocol SegmentsClock: Sendable {
    /// Monotonic now; never goes backwards.
    func now() -> SegmentsInstant
    /// Wall-clock time in seconds since 1970, used to stamp tracked events. Called on the engine
    /// thread as it takes events from the ring: once for the events already claimed when it
    /// reads, again for events claimed after that.
    func wallClockSeconds() -> Double
    /// Blocks the calling engine thread until `deadline` has passed or `wakeup` is signalled,
    /// whichever comes first. A `nil` deadline waits for the signal only.
    func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup)
}
