import RealtimeSegments

/// The engine under test: N callbacks on one category, ordered or parallel delivery, each check a
/// changed segment list fetched from the in-memory backend
/// (``FanoutProbe/engine(callbacks:checks:mode:)``).
///
/// Each trial builds and shuts down its own engine, so nothing of it outlives the trial.
final class EnginePeer: PeerMechanism {
    let name: String
    let timedSpan: String
    /// A trial pays for building an engine and registering N callbacks before its first check, so
    /// it always carries a few checks.
    let minimumRounds: Int
    private let callbacks: Int
    private let mode: DeliveryMode

    /// An engine peer for `callbacks` subscribers delivering in `mode`, whose trials have at least
    /// `minimumChecks` checks. Named `engine` (ordered) or `engine-parallel`.
    init(callbacks: Int, minimumChecks: Int, mode: DeliveryMode = .ordered) {
        self.callbacks = callbacks
        self.mode = mode
        minimumRounds = minimumChecks
        switch mode {
        case .ordered:
            name = "engine"
            timedSpan = "data received (fetch returned) → last callback returned, ordered delivery"
        case .parallel:
            name = "engine-parallel"
            timedSpan = "data received (fetch returned) → last callback returned, parallel delivery on every core"
        }
    }

    func trial(rounds: Int) throws -> PeerTrial {
        let measurement = try FanoutProbe.engine(callbacks: callbacks, checks: rounds, mode: mode)
        let loss = measurement.complete ? nil : "a check did not reach all \(callbacks) callbacks exactly once"
        return PeerTrial(perNotification: measurement.last, loss: loss)
    }

    func tearDown() {}
}
