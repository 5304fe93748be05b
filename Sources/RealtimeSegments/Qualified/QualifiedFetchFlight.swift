/// One qualified-segments request in flight, shared by every caller that joined it (single
/// flight): each gets the same result or the same error.
///
/// Threading: every method may be called from any thread. Waiters run on the thread that calls
/// ``resolve(_:)`` (or on the caller's thread if the flight already ended), outside the lock, so
/// they must be short: resume a continuation, signal a semaphore, dispatch.
final class QualifiedFetchFlight: Sendable {
    typealias Waiter = @Sendable (QualifiedSegmentsFetcher.Outcome) -> Void

    private struct State {
        var result: QualifiedSegmentsFetcher.Outcome?
        var waiters: [Waiter] = []
        var savesToCache: Bool
        /// Forgotten by a removal of its user from the cache: its answer is not saved.
        var forgotten = false
    }

    /// The cache epoch when the request was sent; the answer is cached only if it is still current.
    let cacheEpoch: UInt64
    private let state: Locked<State>

    /// Creates a flight; `savesToCache` is false when it was started by an `ignoreCache` call.
    init(cacheEpoch: UInt64, savesToCache: Bool) {
        self.cacheEpoch = cacheEpoch
        state = Locked(State(savesToCache: savesToCache))
    }

    /// Whether a success should be cached: some participant did not pass `ignoreCache`.
    var savesToCache: Bool { state.withLock { $0.savesToCache } }

    /// Records that a caller who wants the answer cached joined.
    func requestCaching() { state.withLock { $0.savesToCache = !$0.forgotten } }

    /// Its user was removed from the cache: its answer is not saved (callers still get it).
    func forget() {
        state.withLock { state in
            state.forgotten = true
            state.savesToCache = false
        }
    }

    /// How many callers wait for the answer (for tests that hold a request until every caller has
    /// joined it).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Calls `waiter` with the result, now if the flight has ended, else when it does.
    func wait(_ waiter: @escaping Waiter) {
        let result: QualifiedSegmentsFetcher.Outcome? = state.withLock { state in
            if state.result == nil { state.waiters.append(waiter) }
            return state.result
        }
        if let result { waiter(result) }
    }

    /// Waits for the result in an async context, or for the calling task's cancellation
    /// (``SegmentsError/cancelled``), whichever comes first; the request goes on for the others.
    func value() async -> QualifiedSegmentsFetcher.Outcome {
        let resumer = PullResumer<QualifiedSegmentsFetcher.Outcome>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard resumer.install(continuation) else { return }
                wait { resumer.resolve($0) }
            }
        } onCancel: {
            resumer.resolve(.failure(.cancelled))
        }
    }

    /// Ends the flight with `result` and calls every waiter. Only the first call counts.
    func resolve(_ result: QualifiedSegmentsFetcher.Outcome) {
        let waiters: [Waiter] = state.withLock { state in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter(result) }
    }
}
