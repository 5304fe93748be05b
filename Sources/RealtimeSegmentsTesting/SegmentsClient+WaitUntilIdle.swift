import RealtimeSegments

extension SegmentsClient {
    /// Blocks until every call made before it has been processed, every fetch and upload it started
    /// has completed, and every callback and completion it caused has returned. Pending debounce,
    /// retry and flush timers do not count (advance a ``ManualClock`` to fire them). Returns `false`
    /// if that did not happen within `timeout`, measured in real time whatever the client's clock.
    ///
    /// After `stop(timeout:)` it waits for what is still running: a delivery that was under way
    /// (which stops before its next callback), completions, and fetch and upload tasks still in
    /// flight (their results are no longer handled; a fetch lasts at most the transport's
    /// timeout). Before `start()` it returns `true` at once.
    ///
    /// Threading: any thread but the client's own: never from a callback or a completion (it
    /// would wait for itself).
    @discardableResult
    public func waitUntilIdle(timeout: Duration = .seconds(10)) -> Bool {
        waitUntilSettled(timeout: timeout)
    }
}
