import RealtimeSegments

/// A clock that moves only when told to: for deterministic tests of debounce, max-wait, TTL and
/// backoff without sleeping.
///
/// Its clocks stand still until ``advance(by:)`` moves them together;
/// ``advanceWhileAsleep(by:)`` moves the continuous and wall clocks as a device's sleep does, and
/// ``setWallClock(secondsSince1970:)`` moves the wall clock alone. An engine sleeping on this
/// clock wakes when an ``advance(by:)`` reaches its deadline, or when it is given new work; it
/// never wakes because real time passed. ``advance(by:)`` does not wait for the engine to react:
/// call ``RealtimeSegments/SegmentsClient/waitUntilIdle(timeout:)`` after it for that. Only
/// ``setWallClock(secondsSince1970:)`` moves a clock back: a duration below zero moves nothing.
///
/// Threading: every method may be called from any thread, and none blocks; several clients may
/// share one clock.
public final class ManualClock: SegmentsClock, SteppedClock {
    private struct State {
        var now: SegmentsInstant
        var wallClock: Double
        /// Time passed asleep (``advanceWhileAsleep(by:)``): on the continuous clock only.
        var asleep: Duration = .zero
        var sleepers: [(deadline: SegmentsInstant, wakeup: EngineWakeup)] = []
        var sleepsAlreadyDue = 0
    }

    private let state: Locked<State>

    /// Creates a clock standing at `start`, with the wall clock at `wallClockSeconds` since 1970.
    public init(start: SegmentsInstant = SegmentsInstant(nanoseconds: 1_000_000_000), wallClockSeconds: Double = 1_700_000_000) {
        state = Locked(State(now: start, wallClock: wallClockSeconds))
    }

    /// The current instant; moves only with ``advance(by:)``.
    public func now() -> SegmentsInstant { state.withLock { $0.now } }

    /// ``now()`` plus the time passed asleep: moves with ``advance(by:)`` and
    /// ``advanceWhileAsleep(by:)``.
    public func continuousNow() -> SegmentsInstant { state.withLock { $0.now + $0.asleep } }

    /// Moves the continuous clock and the wall clock forward by `duration`, as a device asleep for
    /// that long sees them once it wakes: cached answers age, and the engine's timers, which run on
    /// ``now()``, stand still (no deadline is reached by it).
    public func advanceWhileAsleep(by duration: Duration) {
        let duration = max(duration, .zero)
        state.withLock { state in
            state.asleep += duration
            state.wallClock += duration.inSeconds
        }
    }

    /// The wall clock; moves only with ``advance(by:)``, ``advanceWhileAsleep(by:)`` and
    /// ``setWallClock(secondsSince1970:)``.
    public func wallClockSeconds() -> Double { state.withLock { $0.wallClock } }

    /// Sets the wall clock alone, as a user or NTP may, forwards or back; the monotonic clock (and
    /// so every timer of the engine) stays where it is.
    public func setWallClock(secondsSince1970 seconds: Double) {
        state.withLock { $0.wallClock = seconds }
    }

    /// Moves both clocks forward by `duration` and wakes the engine threads whose deadline it
    /// reached. Returns without waiting for them to react.
    public func advance(by duration: Duration) {
        let duration = max(duration, .zero)
        let due: [EngineWakeup] = state.withLock { state in
            state.now = state.now + duration
            state.wallClock += duration.inSeconds
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.map(\.wakeup)
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for wakeup in due { wakeup.signal() }
    }

    /// How many times an engine asked to sleep until a deadline that had already passed (each
    /// returned at once). An engine with nothing due asks for none: a count that keeps growing while
    /// the clock stands still is an engine turning without rest.
    package var sleepsAlreadyDue: Int { state.withLock { $0.sleepsAlreadyDue } }

    /// The engine's sleep on this clock: returns once ``advance(by:)`` reaches `deadline` (at once
    /// if it has passed), or when `wakeup` is signalled; without a deadline, only when signalled.
    package func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup) {
        if let deadline {
            let alreadyDue = state.withLock { state in
                if deadline <= state.now {
                    state.sleepsAlreadyDue += 1
                    return true
                }
                state.sleepers.append((deadline, wakeup))
                return false
            }
            if alreadyDue { return }
        }
        // Only a signal (new work) or `advance` past the deadline ends this wait.
        wakeup.wait()
        state.withLock { $0.sleepers.removeAll { $0.wakeup === wakeup } }
    }
}
