/// When to run a listener check: a trailing debounce with a max-wait, and at most one check in flight.
///
/// A pure value: it takes inputs with the current time and returns what to do; the engine thread
/// performs the actions and owns the only instance. That is what makes debounce, max-wait and
/// cancellation testable with a manual clock.
///
/// Rules:
/// - A burst of requests yields one check, `debounce` after the last request, but never later than
///   `maxWait` after the first request of the burst.
/// - Requests arriving while a check is in flight are remembered and start one more debounce
///   window when it finishes (with the same max-wait bound, counted from the first such request).
/// - ``cancel()`` forgets pending requests; a check already in flight stays in flight (its result
///   is dropped by generation) so that two checks never overlap.
@_spi(Benchmarks)
public struct CoalescerStateMachine: Sendable {
    /// Debounce and max-wait.
    @_spi(Benchmarks)
    public struct Timing: Sendable, Equatable {
        /// Quiet time after the last request before a check starts.
        var debounce: Duration
        /// Longest time from the first request of a burst to the start of its check.
        var maxWait: Duration

        /// Creates the timing: `debounce` of quiet before a check, `maxWait` at most after the first request.
        @_spi(Benchmarks)
        public init(debounce: Duration, maxWait: Duration) {
            self.debounce = debounce
            self.maxWait = maxWait
        }
    }

    /// A burst of requests not yet served.
    struct Burst: Sendable, Equatable {
        /// When the first request of the burst arrived.
        var first: SegmentsInstant
        /// When the latest request of the burst arrived.
        var last: SegmentsInstant
    }

    enum State: Sendable, Equatable {
        /// Nothing requested, nothing running.
        case idle
        /// Requests are waiting for their debounce window to close.
        case debouncing(Burst)
        /// A check is running; `pending` holds requests that arrived meanwhile.
        case checking(pending: Burst?)
    }

    /// What the engine must do after an input.
    @_spi(Benchmarks)
    public enum Action: Sendable, Equatable {
        /// Nothing now; wake up at ``deadline`` if it is set.
        case none
        /// Start a check now (the state is already `checking`).
        case startCheck
    }

    let timing: Timing
    private(set) var state: State = .idle

    /// Creates an idle state machine.
    @_spi(Benchmarks)
    public init(timing: Timing) {
        self.timing = timing
    }

    /// When the pending burst's window closes, if one is waiting.
    var deadline: SegmentsInstant? {
        guard case .debouncing(let burst) = state else { return nil }
        return deadline(of: burst)
    }

    /// `true` while a check runs.
    var isChecking: Bool {
        if case .checking = state { return true }
        return false
    }


    private func deadline(of burst: Burst) -> SegmentsInstant {
        min(burst.last + timing.debounce, burst.first + timing.maxWait)
    }

    /// A check was requested at `now`.
    @_spi(Benchmarks)
    public mutating func request(at now: SegmentsInstant) -> Action {
        switch state {
        case .idle:
            state = .debouncing(Burst(first: now, last: now))
        case .debouncing(var burst):
            burst.last = max(burst.last, now)
            state = .debouncing(burst)
        case .checking(let pending):
            var burst = pending ?? Burst(first: now, last: now)
            burst.last = max(burst.last, now)
            state = .checking(pending: burst)
        }
        return tick(at: now)
    }

    /// Time passed; starts the check if the window has closed.
    @_spi(Benchmarks)
    public mutating func tick(at now: SegmentsInstant) -> Action {
        guard case .debouncing(let burst) = state, now >= deadline(of: burst) else { return .none }
        state = .checking(pending: nil)
        return .startCheck
    }

    /// The running check finished (served, failed, dropped or skipped).
    @_spi(Benchmarks)
    public mutating func checkFinished(at now: SegmentsInstant) -> Action {
        guard case .checking(let pending) = state else { return .none }
        if let pending {
            state = .debouncing(pending)
            return tick(at: now)
        }
        state = .idle
        return .none
    }

    /// Forgets pending requests (anonymize, stop). Returns `true` if something was pending or running.
    mutating func cancel() -> Bool {
        switch state {
        case .idle:
            return false
        case .debouncing:
            state = .idle
            return true
        case .checking:
            state = .checking(pending: nil)
            return true
        }
    }
}
