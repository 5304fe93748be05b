import RealtimeSegments

/// The engine under test: N callbacks on one category, ordered delivery, each check a changed
/// segment list fetched from the in-memory backend (``FanoutProbe/engine(callbacks:checks:mode:)``).
///
/// Each trial builds and shuts down its own engine, so nothing of it outlives the trial.
final class EnginePeer: PeerMechanism {
    let name = "engine"
    let timedSpan = "data received (fetch returned) → last callback returned, ordered delivery"
    /// A trial pays for building an engine and registering N callbacks before its first check, so
    /// it always carries a few checks.
    let minimumRounds: Int
    private let callbacks: Int

    /// An engine peer for `callbacks` subscribers whose trials have at least `minimumChecks` checks.
    init(callbacks: Int, minimumChecks: Int) {
        self.callbacks = callbacks
        minimumRounds = minimumChecks
    }

    func trial(rounds: Int) throws -> PeerTrial {
        let measurement = try FanoutProbe.engine(callbacks: callbacks, checks: rounds, mode: .ordered)
        let loss = measurement.complete ? nil : "a check did not reach all \(callbacks) callbacks exactly once"
        return PeerTrial(perNotification: measurement.last, loss: loss)
    }

    func tearDown() {}
}
